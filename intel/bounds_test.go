package intel

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"garrison/intel/feed"
)

// An import keeps a record over the caps cut, and its result says what
// each record lost; the view shows the cut description.
func TestImportReportsCuts(t *testing.T) {
	s := testService(t)
	ctx := context.Background()
	long := strings.Repeat("A flaw. ", 20<<10/8)
	file := `{"format":"NVD_CVE","version":"2.0","vulnerabilities":[` +
		`{"cve":{"id":"CVE-2024-1000","descriptions":[{"lang":"en","value":"` + long + `"}],` +
		`"references":[{"url":"https://example.com/` + strings.Repeat("u", feed.MaxURL) + `","tags":["Patch"]},{"url":"https://example.com/fix","tags":["Patch"]}]}},` +
		`{"cve":{"id":"CVE-2024-1001","descriptions":[{"lang":"en","value":"Short."}]}}]}`
	res, err := s.ImportFile(ctx, writeFile(t, "nvd.json", []byte(file)), ImportOptions{Name: "nvd"})
	if err != nil || res.Records != 2 || res.Cut != 1 || len(res.Cuts) != 1 {
		t.Fatalf("import: %v %+v, %d cut %+v", err, res.IntelImport, res.Cut, res.Cuts)
	}
	want := "description cut from 20.0 KiB to 8.0 KiB; 1 reference left out: a URL over 2.0 KiB"
	if c := res.Cuts[0]; c.ID != "CVE-2024-1000" || c.Message != want || c.Index != 0 {
		t.Fatalf("cut %+v, want %q", c, want)
	}
	r, ok, err := s.Lookup(ctx, "CVE-2024-1000")
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if d := r.View.Description; len(d) > feed.MaxDescription || !strings.HasSuffix(d, "… [truncated from 20.0 KiB]") {
		t.Errorf("description of %d bytes", len(d))
	}
	if fmt.Sprint(r.View.PatchRefs) != "[https://example.com/fix]" || r.View.PatchStatus != PatchAvailable {
		t.Errorf("patch references %v", r.View.PatchRefs)
	}
}

// A view stored before the caps held is read within them: an answer never
// carries its 15 MiB description.
func TestStoredViewReadWithinCaps(t *testing.T) {
	refs := make([]string, 3*feed.MaxReferences)
	for i := range refs {
		refs[i] = fmt.Sprint("https://example.com/", i)
	}
	old := View{ID: "CVE-2024-1000", Description: strings.Repeat("d", 15<<20), PatchRefs: refs, ExploitRefs: refs,
		KEV: &KEV{Name: strings.Repeat("n", 1000), RequiredAction: strings.Repeat("a", 10<<10), DueDate: strings.Repeat("9", 100)}}
	raw, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	v, err := decodeView(old.ID, raw)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(v.Description, "… [truncated from 15.0 MiB]") || len(v.Description) > feed.MaxDescription {
		t.Errorf("description of %d bytes", len(v.Description))
	}
	if len(v.KEV.Name) > feed.MaxName || len(v.KEV.RequiredAction) > feed.MaxText || len(v.KEV.DueDate) > feed.MaxWord {
		t.Errorf("KEV %d/%d/%d bytes", len(v.KEV.Name), len(v.KEV.RequiredAction), len(v.KEV.DueDate))
	}
	if len(v.PatchRefs) != 2*feed.MaxReferences || len(v.ExploitRefs) != 2*feed.MaxReferences {
		t.Errorf("%d and %d references", len(v.PatchRefs), len(v.ExploitRefs))
	}
	if _, err := decodeView("CVE-2024-1000", []byte("{")); err == nil {
		t.Error("a broken view decoded")
	}
}

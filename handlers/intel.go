package handlers

import (
	"bytes"
	"errors"
	"net/http"
	"path"
	"strconv"
	"time"

	"garrison/intel"
	"garrison/intel/feed"
	"garrison/store"
	"garrison/timestamp"
)

// importDeadline is how long an API import may take to arrive and load:
// longer than the server's usual timeouts, which suit ordinary requests.
const importDeadline = 15 * time.Minute

type importView struct {
	ImportID      string            `json:"import_id"`
	Format        string            `json:"format"`
	Name          string            `json:"name"`
	Via           string            `json:"via"`
	Status        string            `json:"status"`
	Records       int               `json:"records"`
	Added         int               `json:"added"`
	Changed       int               `json:"changed"`
	Unchanged     int               `json:"unchanged"`
	Skipped       int               `json:"skipped"`
	NewestRecord  *string           `json:"newest_record"`
	Meta          map[string]string `json:"meta"`
	Error         string            `json:"error,omitempty"`
	StartedAt     string            `json:"started_at"`
	FinishedAt    *string           `json:"finished_at"`
	Problems      []problemView     `json:"problems,omitempty"`
	Cut           *int              `json:"cut,omitempty"`
	Cuts          []problemView     `json:"cuts,omitempty"`
	Notifications *int              `json:"organizations_notified,omitempty"`
}

type problemView struct {
	Index   int    `json:"index"`
	Offset  int64  `json:"offset"`
	ID      string `json:"id,omitempty"`
	Message string `json:"message"`
}

func newImportView(imp store.IntelImport) importView {
	meta := imp.Meta
	if meta == nil {
		meta = map[string]string{}
	}
	return importView{ImportID: imp.ID, Format: imp.Format, Name: imp.Name, Via: imp.Via, Status: imp.Status, Records: imp.Records,
		Added: imp.Added, Changed: imp.Changed, Unchanged: imp.Unchanged, Skipped: imp.Skipped, NewestRecord: timestamp.Optional(imp.Newest),
		Meta: meta, Error: imp.Error, StartedAt: timestamp.Format(imp.StartedAt), FinishedAt: timestamp.Optional(imp.FinishedAt)}
}

// importIntel loads the request body (any format the store reads, gzip or
// not) into the appliance's intelligence store.
func (a *API) importIntel(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	if err := a.Intel.MayImport(r.Context(), p.OrgID); err != nil {
		return err
	}
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(importDeadline))
	rc.SetWriteDeadline(time.Now().Add(importDeadline))
	name, _ := queryValue(r, "name")
	if name = path.Base("/" + name); name == "/" {
		name = "upload"
	}
	res, err := a.Intel.ImportReader(r.Context(), r.Body, intel.ImportOptions{Name: name, Via: "api", Actor: p.ID})
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return intel.ErrImportTooLarge
	}
	if err != nil {
		return err // a failed write pass is recorded as a failed import in /intel/status
	}
	auditTarget(r, res.ID)
	auditDetail(r, "name", res.Name)
	v := newImportView(res.IntelImport)
	toView := func(p feed.Problem) problemView { return problemView{p.Index, p.Offset, p.ID, p.Message} }
	v.Problems, v.Cuts = mapSlice(res.Problems, toView), mapSlice(res.Cuts, toView)
	v.Cut, v.Notifications = &res.Cut, &res.Notifications
	writeData(w, http.StatusOK, v)
	return nil
}

type intelStatusView struct {
	Counts      map[string]int        `json:"counts"`
	NewestCVE   *string               `json:"newest_record"`
	LastImports map[string]importView `json:"last_imports"`
	Running     []importView          `json:"running"`
}

func (a *API) intelStatus(w http.ResponseWriter, r *http.Request) error {
	st, err := a.Intel.Status(r.Context())
	if err != nil {
		return err
	}
	v := intelStatusView{Counts: map[string]int{"cves": st.CVEs, "nvd": st.NVD, "cve5": st.CVE5, "kev": st.KEV, "epss": st.EPSS,
		"attack_techniques": st.Techniques}, NewestCVE: timestamp.Optional(st.NewestCVE), LastImports: map[string]importView{},
		Running: mapSlice(st.Running, newImportView)}
	for f, imp := range st.LastImports {
		v.LastImports[f] = newImportView(imp)
	}
	writeData(w, http.StatusOK, v)
	return nil
}

// Watchlist.

type watchRequest struct {
	CVEID string `json:"cve_id"`
}

type cvssView struct {
	Score            float64  `json:"score"`
	Vector           string   `json:"vector"`
	Severity         string   `json:"severity"`
	Source           string   `json:"source"`
	ComputedScore    *float64 `json:"computed_score,omitempty"`
	MatchesPublished *bool    `json:"matches_published,omitempty"`
}

type watchView struct {
	ID                string                `json:"id"`
	CVEID             string                `json:"cve_id"`
	Status            string                `json:"status"`
	Description       *string               `json:"description"`
	Published         *string               `json:"published"`
	CVSSScore         *float64              `json:"cvss_score"`
	CVSSVersion       *string               `json:"cvss_version"`
	CVSSVector        *string               `json:"cvss_vector"`
	Severity          *string               `json:"severity"`
	CVSS              map[string]cvssView   `json:"cvss"`
	Vendor            *string               `json:"vendor"`
	Product           *string               `json:"product"`
	PatchStatus       string                `json:"patch_status"`
	PatchBasis        *string               `json:"patch_basis"`
	PatchReferences   []string              `json:"patch_references"`
	ExploitReferences []string              `json:"exploit_references"`
	KEV               *intel.KEV            `json:"kev"`
	EPSS              *intel.EPSS           `json:"epss"`
	CWE               []string              `json:"cwe"`
	SSVC              *feed.SSVC            `json:"ssvc"`
	AttackTechniques  []intel.Technique     `json:"attack_techniques"`
	AffectedAssets    []intel.AffectedAsset `json:"affected_assets"`
	LastIntelUpdate   *string               `json:"last_intel_update"`
	AddedBy           string                `json:"added_by"`
	AddedAt           string                `json:"added_at"`
	History           *[]historyView        `json:"history,omitempty"` // one entry only
}

type historyView struct {
	Field    string  `json:"field"`
	From     *string `json:"from"`
	To       *string `json:"to"`
	At       string  `json:"at"`
	ImportID string  `json:"import_id"`
}

func newWatchView(e intel.Entry) watchView {
	v := watchView{ID: e.ID, CVEID: e.CVEID, Status: e.Status, CVSS: map[string]cvssView{}, PatchStatus: intel.PatchUnknown,
		PatchReferences: []string{}, ExploitReferences: []string{}, CWE: []string{}, AttackTechniques: e.Techniques,
		AffectedAssets: e.Affected, LastIntelUpdate: timestamp.Optional(e.LastIntel), AddedBy: e.AddedBy, AddedAt: timestamp.Format(e.CreatedAt)}
	if e.History != nil {
		h := make([]historyView, 0, len(e.History))
		for _, c := range e.History {
			h = append(h, historyView{c.Field, c.Before, c.After, timestamp.Format(c.At), c.ImportID})
		}
		v.History = &h
	}
	iv := e.View
	if iv == nil {
		return v
	}
	v.Description, v.Published = &iv.Description, iv.Published
	if iv.Primary != nil {
		sev := iv.Severity()
		v.CVSSScore, v.CVSSVersion, v.CVSSVector, v.Severity = &iv.Primary.Score, &iv.Primary.Version, &iv.Primary.Vector, &sev
	}
	for _, s := range iv.Scores {
		key := "v" + s.Version
		if _, ok := v.CVSS[key]; ok && s.Source != "nvd@nist.gov" {
			continue // one score per version: NVD's own first
		}
		v.CVSS[key] = cvssView{Score: s.Score, Vector: s.Vector, Severity: s.Severity, Source: s.Source, ComputedScore: s.Computed,
			MatchesPublished: s.Matches}
	}
	if iv.Vendor != "" {
		v.Vendor, v.Product = &iv.Vendor, &iv.Product
	}
	v.PatchStatus, v.PatchReferences, v.ExploitReferences = iv.PatchStatus, iv.PatchRefs, iv.ExploitRefs
	if iv.PatchBasis != "" {
		v.PatchBasis = &iv.PatchBasis
	}
	v.KEV, v.EPSS, v.CWE, v.SSVC = iv.KEV, iv.EPSS, iv.CWEs, iv.SSVC
	return v
}

func (a *API) addWatch(w http.ResponseWriter, r *http.Request) error {
	var req watchRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	p := principalFrom(r.Context())
	e, err := a.Intel.Watch(r.Context(), p.OrgID, req.CVEID, p.ID)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, newWatchView(e))
	return nil
}

func (a *API) listWatch(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	get := func(name string) string { v, _ := queryValue(r, name); return v }
	q, err := intel.ParseListQuery(get("min_score"), get("kev"), get("patch_status"), get("affected"), get("sort"), page)
	if err != nil {
		return err
	}
	entries, total, err := a.Intel.Watchlist(r.Context(), principalFrom(r.Context()).OrgID, q)
	if err != nil {
		return err
	}
	writeList(w, mapSlice(entries, newWatchView), total, page)
	return nil
}

func (a *API) getWatch(w http.ResponseWriter, r *http.Request) error {
	e, err := a.Intel.WatchEntry(r.Context(), principalFrom(r.Context()).OrgID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, newWatchView(e))
	return nil
}

func (a *API) deleteWatch(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	e, err := a.Intel.Unwatch(r.Context(), principalFrom(r.Context()).OrgID, id)
	if err != nil {
		return err
	}
	auditDetail(r, "cve_id", e.CVEID)
	writeData(w, http.StatusOK, map[string]any{"id": id, "deleted": true})
	return nil
}

// Assets.

type assetView struct {
	ID       string           `json:"id"`
	Hostname string           `json:"hostname"`
	IP       string           `json:"ip"`
	OS       string           `json:"os"`
	Owner    string           `json:"owner"`
	Software []store.Software `json:"software"`
	// InternetFacing ranks its findings first.
	InternetFacing bool `json:"internet_facing"`
	// Identifier is the reporting agent's name of the host.
	Identifier string `json:"identifier"`
	CreatedAt  string `json:"created_at"`
	UpdatedAt  string `json:"updated_at"`
	Created    *bool  `json:"created,omitempty"`
	// Findings are the detail's: its findings (at most 200, KEV-listed and
	// highest scored first) and how many it has.
	Findings      *[]findingView `json:"findings,omitempty"`
	FindingsTotal *int           `json:"findings_total,omitempty"`
}

func newAssetView(a store.Asset) assetView {
	return assetView{ID: a.ID, Hostname: a.Hostname, IP: a.IP, OS: a.OS, Owner: a.Owner, Software: a.Software, InternetFacing: a.InternetFacing,
		Identifier: a.Identifier, CreatedAt: timestamp.Format(a.CreatedAt), UpdatedAt: timestamp.Format(a.UpdatedAt)}
}

// putAssets takes one asset or an array of them.
func (a *API) putAssets(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	var in []intel.AssetInput
	batch := bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("["))
	if batch {
		err = decodeJSON(body, &in)
	} else {
		in = make([]intel.AssetInput, 1)
		err = decodeJSON(body, &in[0])
	}
	if err != nil {
		return err
	}
	assets, created, err := a.Intel.PutAssets(r.Context(), principalFrom(r.Context()).OrgID, in, batch)
	if err != nil {
		return err
	}
	views := make([]assetView, len(assets))
	anyNew := false
	for i, as := range assets {
		views[i] = newAssetView(as)
		views[i].Created = &created[i]
		anyNew = anyNew || created[i]
	}
	status := http.StatusOK
	if anyNew {
		status = http.StatusCreated
	}
	if !batch {
		writeData(w, status, views[0])
		return nil
	}
	writeData(w, status, views)
	return nil
}

func (a *API) listAssets(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	assets, total, err := a.Intel.Assets(r.Context(), principalFrom(r.Context()).OrgID, page)
	if err != nil {
		return err
	}
	writeList(w, mapSlice(assets, newAssetView), total, page)
	return nil
}

func (a *API) getAsset(w http.ResponseWriter, r *http.Request) error {
	org := principalFrom(r.Context()).OrgID
	as, err := a.Intel.Asset(r.Context(), org, r.PathValue("id"))
	if err != nil {
		return err
	}
	found, total, err := a.Intel.AssetFindings(r.Context(), org, as.ID)
	if err != nil {
		return err
	}
	v := newAssetView(as)
	views := mapSlice(found, newFindingView)
	if views == nil {
		views = []findingView{}
	}
	v.Findings, v.FindingsTotal = &views, &total
	writeData(w, http.StatusOK, v)
	return nil
}

func (a *API) patchAsset(w http.ResponseWriter, r *http.Request) error {
	var patch intel.AssetPatch
	if err := decode(r, &patch); err != nil {
		return err
	}
	as, err := a.Intel.UpdateAsset(r.Context(), principalFrom(r.Context()).OrgID, r.PathValue("id"), patch)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, newAssetView(as))
	return nil
}

func (a *API) deleteAsset(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	as, err := a.Intel.DeleteAsset(r.Context(), principalFrom(r.Context()).OrgID, id)
	if err != nil {
		return err
	}
	auditDetail(r, "hostname", as.Hostname)
	writeData(w, http.StatusOK, map[string]any{"id": id, "deleted": true})
	return nil
}

// MaxInventoryBytes caps an inventory import's body (a large SBOM is a
// few MiB).
const MaxInventoryBytes = 32 << 20

// inventoryChangeView is what an import did to one asset.
type inventoryChangeView struct {
	ID       string           `json:"id"`
	Hostname string           `json:"hostname"`
	Created  bool             `json:"created"`
	Added    []store.Software `json:"added"`
	Changed  []store.Software `json:"changed"`
	Removed  []store.Software `json:"removed"`
}

type inventoryProblemView struct {
	Where  string `json:"where"`
	Reason string `json:"reason"`
}

func nonNilSoftware(s []store.Software) []store.Software {
	if s == nil {
		return []store.Software{}
	}
	return s
}

func (a *API) importInventory(w http.ResponseWriter, r *http.Request) error {
	body, err := readBodyAs(r, "application/json", "application/vnd.cyclonedx+json", "application/x-ndjson", "text/csv", "text/plain")
	if err != nil {
		return err
	}
	host, _ := queryValue(r, "hostname")
	partial, err := boolParam(r, "partial")
	if err != nil {
		return err
	}
	rep, err := a.Intel.ImportInventory(r.Context(), principalFrom(r.Context()).OrgID, body, intel.InventoryOptions{Hostname: host, Partial: partial})
	if err != nil {
		return err
	}
	v := map[string]any{"format": rep.Format}
	changes := make([]inventoryChangeView, len(rep.Assets))
	status := http.StatusOK
	for i, c := range rep.Assets {
		changes[i] = inventoryChangeView{ID: c.Asset.ID, Hostname: c.Asset.Hostname, Created: c.Created, Added: nonNilSoftware(c.Added),
			Changed: nonNilSoftware(c.Changed), Removed: nonNilSoftware(c.Removed)}
		if c.Created {
			status = http.StatusCreated
		}
	}
	problems := make([]inventoryProblemView, len(rep.Problems))
	for i, p := range rep.Problems {
		problems[i] = inventoryProblemView{p.Where, p.Reason}
	}
	v["assets"], v["problems"], v["skipped"] = changes, problems, rep.Skipped
	auditDetail(r, "format", rep.Format)
	auditDetail(r, "assets", strconv.Itoa(len(changes)))
	writeData(w, status, v)
	return nil
}

package detection

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"garrison/sigma"
	"garrison/telemetry"
)

// sigmaData is SigmaHQ's rules and regression events, read at run time
// (Detection Rule License 1.1: see its SOURCES.md).
const sigmaData = "../../shared/data/detection/sigma"

// regressionCase is one folder of SigmaHQ's regression data: the rule it
// names and the real events that must fire it.
type regressionCase struct {
	dir    string
	ruleID string
	events []regressionEvent
}

type regressionEvent struct {
	file    string
	fields  sigma.Event
	sources []sigma.Logsource
}

// loadRules compiles every rule file under dir, by id, and the reasons of
// those refused.
func loadRules(dir string) (map[string]*sigma.Rule, map[string]string, error) {
	rules, refused := map[string]*sigma.Rule{}, map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yml") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		r, err := sigma.Parse(src)
		if err != nil {
			refused[path] = err.Error()
			return nil
		}
		rules[r.ID] = r
		return nil
	})
	return rules, refused, err
}

func loadRegression(dir string) ([]regressionCase, error) {
	var cases []regressionCase
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() != "info.yml" {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var info struct {
			RuleMetadata []struct{ ID string } `yaml:"rule_metadata"`
		}
		if err := yaml.Unmarshal(src, &info); err != nil || len(info.RuleMetadata) != 1 {
			return fmt.Errorf("%s: %v (%d rules named)", path, err, len(info.RuleMetadata))
		}
		c := regressionCase{dir: filepath.Dir(path), ruleID: info.RuleMetadata[0].ID}
		files, _ := filepath.Glob(filepath.Join(c.dir, "*.json"))
		for _, f := range files {
			body, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			res, err := telemetry.Parse(telemetry.FormatWindows, body, time.Now())
			if err != nil || len(res.Problems) > 0 {
				return fmt.Errorf("%s: %v %+v", f, err, res.Problems)
			}
			for _, r := range res.Records {
				fields, sources := Input(r.Raw)
				c.events = append(c.events, regressionEvent{file: f, fields: fields, sources: sources})
			}
		}
		cases = append(cases, c)
		return nil
	})
	return cases, err
}

// regressionData loads SigmaHQ's rules and Windows regression events
// once for every test and benchmark of the package, or skips saying why.
var regressionData = sync.OnceValues(func() (*regressionSet, error) {
	rules, refused, err := loadRules(filepath.Join(sigmaData, "rules"))
	if err != nil {
		return nil, fmt.Errorf("read the rules: %w", err)
	}
	cases, err := loadRegression(filepath.Join(sigmaData, "regression", "windows"))
	if err != nil {
		return nil, fmt.Errorf("read the regression events: %w", err)
	}
	var all []*sigma.Rule
	for _, r := range rules {
		all = append(all, r)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	return &regressionSet{rules: rules, refused: refused, cases: cases, engine: NewEngine(all)}, nil
})

type regressionSet struct {
	rules   map[string]*sigma.Rule
	refused map[string]string
	cases   []regressionCase
	engine  *Engine
}

func needRegression(tb testing.TB) *regressionSet {
	tb.Helper()
	if _, err := os.Stat(sigmaData); err != nil {
		tb.Skipf("SKIP: SigmaHQ's rules and regression events are read from %s at run time, and it is not here: %v", sigmaData, err)
	}
	set, err := regressionData()
	if err != nil {
		tb.Fatal(err)
	}
	return set
}

// TestSigmaRegression: every real event of SigmaHQ's regression data fires
// the rule its folder names, and no other folder's event fires that rule,
// through the indexed engine with every compiled rule loaded.
func TestSigmaRegression(t *testing.T) {
	set := needRegression(t)
	t.Logf("%d rules compiled, %d refused", len(set.rules), len(set.refused))
	if len(set.cases) < 190 {
		t.Fatalf("%d regression folders read, want the 192 Windows ones", len(set.cases))
	}
	fired := map[string]map[string]bool{} // rule id → folders with an event firing it
	events := 0
	for _, c := range set.cases {
		for _, e := range c.events {
			events++
			for _, r := range set.engine.Match(e.fields, e.sources, nil) {
				if fired[r.ID] == nil {
					fired[r.ID] = map[string]bool{}
				}
				fired[r.ID][c.dir] = true
			}
		}
	}
	t.Logf("%d regression folders, %d events", len(set.cases), events)
	for _, c := range set.cases {
		name := strings.TrimPrefix(c.dir, filepath.Join(sigmaData, "regression")+"/")
		t.Run(name, func(t *testing.T) {
			r, ok := set.rules[c.ruleID]
			if !ok {
				t.Fatalf("rule %s is not among the compiled rules (refused: %v)", c.ruleID, refusedOf(set.refused, c.ruleID))
			}
			if len(c.events) == 0 {
				t.Fatal("the folder holds no event")
			}
			if !fired[r.ID][c.dir] {
				t.Errorf("none of its %d events fires %q (%v)", len(c.events), r.Title, r.Logsource)
			}
			var crossed []string
			for dir := range fired[r.ID] {
				if dir != c.dir {
					crossed = append(crossed, filepath.Base(dir))
				}
			}
			sort.Strings(crossed)
			if want := overlaps[r.Title]; strings.Join(crossed, " ") != strings.Join(want, " ") {
				t.Errorf("fired by the events of %v, want only its own and those of %v", crossed, want)
			}
		})
	}
}

// TestEngineMatchesEach: the indexed engine fires exactly the rules the
// straightforward evaluator does, on every regression event, and skips
// most rules doing so.
func TestEngineMatchesEach(t *testing.T) {
	set := needRegression(t)
	ids := func(rs []*sigma.Rule) string {
		var out []string
		for _, r := range rs {
			out = append(out, r.ID)
		}
		sort.Strings(out)
		return strings.Join(out, " ")
	}
	matches := 0
	for _, c := range set.cases {
		for _, e := range c.events {
			indexed, each := set.engine.Match(e.fields, e.sources, nil), set.engine.MatchEach(e.fields, e.sources, nil)
			if ids(indexed) != ids(each) {
				t.Errorf("%s: indexed fires %s, each rule tried fires %s", e.file, ids(indexed), ids(each))
			}
			matches += len(each)
		}
	}
	if matches < 192 {
		t.Fatalf("%d matches in all: the comparison proves little", matches)
	}
}

// BenchmarkEngine runs the regression events, over and over, through the
// indexed engine and through the straightforward evaluator, with every
// compiled rule loaded: events per second on one core.
//
//	go test -run XXX -bench Engine -benchtime 1000000x ./detection
func BenchmarkEngine(b *testing.B) {
	set := needRegression(b)
	var events []regressionEvent
	for _, c := range set.cases {
		events = append(events, c.events...)
	}
	for _, mode := range []string{"indexed", "each"} {
		b.Run(mode, func(b *testing.B) {
			match := set.engine.Match
			if mode == "each" {
				match = set.engine.MatchEach
			}
			var out []*sigma.Rule
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				e := events[i%len(events)]
				out = match(e.fields, e.sources, out[:0])
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// overlaps are the other folders whose events fire a rule, each checked
// by hand: a rule of a family fires on its siblings' events because the
// event is what both describe (AdFind.EXE Execution on an AdFind
// enumeration, File Download Via Bitsadmin on every bitsadmin download),
// not because the engine reads a rule wrongly. Any other folder firing a
// rule fails the test.
var overlaps = map[string][]string{
	"Application Removed Via Wmic.EXE":                                                      {"proc_creation_win_wmic_uninstall_security_products"},
	"Chromium Browser Instance Executed With Custom Extension":                              {"proc_creation_win_browsers_chromium_susp_load_extension"},
	"Cred Dump Tools Dropped Files":                                                         {"file_event_win_hktl_netexec_file_indicators"},
	"File Download From Browser Process Via Inline URL":                                     {"proc_creation_win_browsers_chromium_headless_file_download"},
	"File Download Via Bitsadmin":                                                           {"proc_creation_win_bitsadmin_download_direct_ip", "proc_creation_win_bitsadmin_download_file_sharing_domains", "proc_creation_win_bitsadmin_download_susp_extensions", "proc_creation_win_bitsadmin_download_susp_targetfolder"},
	"File Download Via Bitsadmin To A Suspicious Target Folder":                             {"proc_creation_win_bitsadmin_download_direct_ip", "proc_creation_win_bitsadmin_download_file_sharing_domains", "proc_creation_win_bitsadmin_download_susp_extensions"},
	"File Encoded To Base64 Via Certutil.EXE":                                               {"proc_creation_win_certutil_encode_susp_extensions", "proc_creation_win_certutil_encode_susp_location"},
	"File With Suspicious Extension Downloaded Via Bitsadmin":                               {"proc_creation_win_bitsadmin_download_direct_ip", "proc_creation_win_bitsadmin_download_file_sharing_domains", "proc_creation_win_bitsadmin_download_susp_targetfolder"},
	"Hypervisor-protected Code Integrity (HVCI) Related Registry Tampering Via CommandLine": {"proc_creation_win_credential_guard_registry_tampering"},
	"Insecure Transfer Via Curl.EXE":                                                        {"proc_creation_win_curl_susp_download"},
	"Legitimate Application Dropped Executable":                                             {"file_event_win_susp_legitimate_app_dropping_in_uncommon_location"},
	"Legitimate Application Writing Files In Uncommon Location":                             {"file_event_win_susp_legitimate_app_dropping_exe", "file_event_win_susp_legitimate_app_dropping_script"},
	"Local Accounts Discovery":                                                              {"proc_creation_win_cmdkey_recon"},
	"PUA - AdFind Suspicious Execution":                                                     {"proc_creation_win_pua_adfind_execution"},
	"PUA - AdFind.EXE Execution":                                                            {"proc_creation_win_pua_adfind_enumeration", "proc_creation_win_pua_adfind_susp_usage", "proc_creation_win_renamed_adfind"},
	"PUA - Advanced IP Scanner Execution":                                                   {"proc_creation_win_pua_advanced_port_scanner"},
	"PUA - AdvancedRun Execution":                                                           {"proc_creation_win_pua_advancedrun_priv_user"},
	"PUA - Sysinternal Tool Execution - Registry":                                           {"registry_set_pua_sysinternals_renamed_execution_via_eula", "registry_set_pua_sysinternals_susp_execution_via_eula"},
	"PUA - Sysinternals Tools Execution - Registry":                                         {"registry_set_pua_sysinternals_execution_via_eula", "registry_set_pua_sysinternals_renamed_execution_via_eula"},
	"Potential Product Reconnaissance Via Wmic.EXE":                                         {"proc_creation_win_wmic_recon_product_class"},
	"Process Creation Attempt via Wmic.EXE":                                                 {"proc_creation_win_wmic_remote_execution", "proc_creation_win_wmic_susp_process_creation"},
	"Recon Command Output Piped To Findstr.EXE":                                             {"proc_creation_win_findstr_security_keyword_lookup"},
	"Service Reconnaissance Via Wmic.EXE":                                                   {"proc_creation_win_wmic_recon_unquoted_service_search"},
	"Suspicious Binaries and Scripts in Public Folder":                                      {"file_event_win_susp_legitimate_app_dropping_in_uncommon_location"},
	"Suspicious Chromium Browser Instance Executed With Custom Extension":                   {"proc_creation_win_browsers_chromium_load_extension"},
	"Suspicious Curl.EXE Download":                                                          {"proc_creation_win_curl_download_direct_ip_exec", "proc_creation_win_curl_local_file_read"},
	"Suspicious Download From File-Sharing Website Via Bitsadmin":                           {"proc_creation_win_bitsadmin_download_susp_extensions", "proc_creation_win_bitsadmin_download_susp_targetfolder"},
	"Suspicious Download Via Certutil.EXE":                                                  {"proc_creation_win_certutil_download_direct_ip", "proc_creation_win_certutil_download_file_sharing_domains"},
	"Suspicious File Download From File Sharing Domain Via Curl.EXE":                        {"proc_creation_win_curl_susp_download"},
	"Suspicious File Downloaded From File-Sharing Website Via Certutil.EXE":                 {"proc_creation_win_certutil_download"},
	"Suspicious File Encoded To Base64 Via Certutil.EXE":                                    {"proc_creation_win_certutil_encode", "proc_creation_win_certutil_encode_susp_location"},
	"System File Execution Location Anomaly":                                                {"proc_creation_win_svchost_masqueraded_execution"},
}

func refusedOf(refused map[string]string, id string) []string {
	var out []string
	for path, why := range refused {
		if src, err := os.ReadFile(path); err == nil && strings.Contains(string(src), id) {
			out = append(out, path+": "+why)
		}
	}
	sort.Strings(out)
	return out
}

package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"

	"garrison/agents"
	"garrison/outreach"
	"garrison/store"
)

// demoProspects are fictional businesses (example.com-style domains) an
// MSP in Ohio might pursue.
const demoProspects = `company,domain,vertical,region,employees,contact_name,contact_email,contact_phone,notes
Maple Street Dental,maplestreetdental.example,dental,Ohio,18,Dr. Lena Ortiz,lena@maplestreetdental.example,+1 614 555 0142,"Front desk PC hit by ransomware last spring; no IT staff, the office manager handles it"
Buckeye Family Clinic,buckeyeclinic.example,healthcare,Ohio,64,Mark Chen,mchen@buckeyeclinic.example,+1 614 555 0190,HIPAA risk assessment due before the cyber insurance renewal
Harper & Voss LLP,harpervoss.example,legal,Ohio,27,Jane Harper,jharper@harpervoss.example,,Partners worried after a phishing wave hit two local firms
Riverside Accounting,riversidecpa.example,accounting,Ohio,12,Sam Patel,sam@riversidecpa.example,+1 513 555 0111,Tax season is hiring season; part-time IT contractor
Lakeview Insurance Agency,lakeviewins.example,insurance,Ohio,35,Priya Nair,priya@lakeviewins.example,+1 216 555 0177,State data security law audit this year
Columbus Gear Outlet,columbusgear.example,retail,Ohio,140,Tom Reed,treed@columbusgear.example,,PCI questionnaire overdue; opening a new store
Midwest Tool & Die,midwesttool.example,manufacturing,Indiana,220,Alex Kim,akim@midwesttool.example,+1 317 555 0123,
Cedar Point Realty,cedarpointrealty.example,real_estate,Ohio,9,Rosa Diaz,rosa@cedarpointrealty.example,,Wire fraud attempt on a closing last month
Sunrise Charter School,sunrisecharter.example,education,Ohio,80,Ben Ford,bford@sunrisecharter.example,+1 614 555 0155,
Northgate Logistics,northgatelogistics.example,logistics,Ohio,410,Ivy Moss,ivy@northgatelogistics.example,,Has an in-house IT team of four
`

// demoLeadMoves move some of the scored leads through the pipeline, so the
// demo shows leads in several statuses with their history.
var demoLeadMoves = []struct {
	domain string
	moves  []string
	note   string
}{
	{"maplestreetdental.example", []string{"contacted", "responded", "qualified"}, "Walked Dr. Ortiz through the backup and EDR bundle"},
	{"buckeyeclinic.example", []string{"contacted", "responded", "qualified", "won"}, "Signed a 24-month managed security agreement"},
	{"harpervoss.example", []string{"contacted"}, "Left a voicemail for Jane Harper"},
	{"northgatelogistics.example", []string{"contacted", "lost"}, "Keeping their in-house team for now"},
}

// seedDemoOutreach imports the demo's prospects, carries out a hunter run
// over them, and moves some leads on, as a sales team would have.
func seedDemoOutreach(ctx context.Context, st *store.Store, admin store.User) error {
	if _, err := outreach.Import(ctx, st, admin.OrgID, admin.ID, "text/csv", []byte(demoProspects)); err != nil {
		return fmt.Errorf("demo prospects: %w", err)
	}
	run, err := st.QueueRun(ctx, store.NewRun{OrgID: admin.OrgID, Agent: "msp-hunter", Params: json.RawMessage(`{"region":"Ohio"}`),
		RequestedBy: admin.ID})
	if err != nil {
		return fmt.Errorf("demo hunter run: %w", err)
	}
	runner := agents.NewRunner(agents.Config{Store: st, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Workers: 1})
	if err := runner.RunNow(ctx, run.ID); err != nil {
		return fmt.Errorf("demo hunter run: %w", err)
	}
	leads, _, err := st.Leads(ctx, admin.OrgID, store.LeadQuery{}, store.Page{Limit: 100})
	if err != nil {
		return err
	}
	byDomain := map[string]string{}
	for _, l := range leads {
		byDomain[l.Prospect.Domain] = l.ID
	}
	for _, m := range demoLeadMoves {
		id, ok := byDomain[m.domain]
		if !ok {
			return fmt.Errorf("demo lead %s was not scored", m.domain)
		}
		for i, status := range m.moves {
			note := ""
			if i == len(m.moves)-1 {
				note = m.note
			}
			if _, err := st.SetLeadStatus(ctx, admin.OrgID, id, status, note, admin.ID); err != nil {
				return fmt.Errorf("demo lead %s: %w", m.domain, err)
			}
		}
	}
	return nil
}

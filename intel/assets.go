package intel

import (
	"context"
	"net/netip"
	"strconv"
	"strings"

	"garrison/intel/cpe"
	"garrison/store"
	"garrison/valid"
)

// Limits of the inventory.
const (
	MaxAssetsPerRequest = 1000
	maxSoftware         = 5000 // a Linux host's packages
	maxHostname         = 253
	maxLabel            = 100
	maxVersion          = 64
	maxCPE              = 1024
	maxPackages         = 200 // the binary packages of one source
	maxPackageKey       = 200
)

// AssetInput is an asset as a client sends it.
type AssetInput struct {
	Hostname string           `json:"hostname"`
	IP       string           `json:"ip"`
	OS       string           `json:"os"`
	Owner    string           `json:"owner"`
	Software []store.Software `json:"software"`
	// InternetFacing ranks its findings first (GET /findings/priorities).
	InternetFacing bool `json:"internet_facing"`
	// Identifier is the reporting agent's name of the host (osquery's
	// host UUID); an inventory import merges by it first. Left empty, a
	// write keeps the asset's.
	Identifier string `json:"identifier"`
}

// check validates one asset; prefix names its place in a batch ("0.").
func (a *AssetInput) check(p *valid.Problems, prefix string) {
	a.Hostname = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(a.Hostname), "."))
	p.Check(validHostname(a.Hostname), prefix+"hostname", "is required: a host name of at most 253 characters (letters, digits, '-', '_' and dots)")
	if a.IP != "" {
		addr, err := netip.ParseAddr(a.IP)
		p.Check(err == nil && addr.Zone() == "", prefix+"ip", "must be an IPv4 or IPv6 address")
		if err == nil {
			a.IP = addr.String()
		}
	}
	p.CheckText(prefix+"os", a.OS, valid.TextRule{Max: maxLabel, OneLine: true})
	p.CheckText(prefix+"owner", a.Owner, valid.TextRule{Max: maxLabel, OneLine: true})
	a.Identifier = strings.TrimSpace(a.Identifier)
	p.CheckText(prefix+"identifier", a.Identifier, valid.TextRule{Max: maxLabel, OneLine: true})
	if len(a.Software) > maxSoftware {
		p.Add(prefix+"software", "must list at most "+strconv.Itoa(maxSoftware)+" entries")
		return
	}
	for i := range a.Software {
		s := &a.Software[i]
		at := prefix + "software." + strconv.Itoa(i) + "."
		s.Vendor, s.Product, s.Version = strings.TrimSpace(s.Vendor), strings.TrimSpace(s.Product), strings.TrimSpace(s.Version)
		p.CheckText(at+"vendor", s.Vendor, valid.TextRule{Max: maxLabel, Required: true, OneLine: true})
		p.CheckText(at+"product", s.Product, valid.TextRule{Max: maxLabel, Required: true, OneLine: true})
		p.Check(len(s.Version) <= maxVersion && valid.Text(s.Version) && !strings.ContainsAny(s.Version, " \n\t"), at+"version", "must be at most 64 bytes without spaces")
		p.CheckText(at+"rule", s.Rule, valid.TextRule{Max: 300, OneLine: true})
		if len(s.Packages) > maxPackages {
			p.Add(at+"packages", "must list at most "+strconv.Itoa(maxPackages)+" packages")
		}
		for j, pkg := range s.Packages {
			p.CheckText(at+"packages."+strconv.Itoa(j), pkg, valid.TextRule{Max: maxPackageKey, Required: true, OneLine: true})
		}
		if s.CPE != "" {
			_, err := cpe.Parse(s.CPE)
			p.Check(len(s.CPE) <= maxCPE && err == nil, at+"cpe", "must be a CPE 2.3 name (cpe:2.3:part:vendor:product:version:…)")
		}
	}
}

func validHostname(h string) bool {
	if h == "" || len(h) > maxHostname {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return false
			}
		}
	}
	return true
}

func (a AssetInput) asset(orgID string) store.Asset {
	sw := a.Software
	if sw == nil {
		sw = []store.Software{}
	}
	return store.Asset{OrgID: orgID, Hostname: a.Hostname, IP: a.IP, OS: a.OS, Owner: a.Owner, Software: sw, Products: productKeys(sw),
		InternetFacing: a.InternetFacing, Identifier: a.Identifier}
}

// matchWritten matches assets just written, so that the answer and the
// next read show their findings. The write is done and queued them: if
// matching fails now, the matcher's loop tries again (and logs why).
func (s *Service) matchWritten(ctx context.Context, assets []store.Asset) {
	ids := make([]string, len(assets))
	for i, a := range assets {
		ids[i] = a.ID
	}
	if err := s.MatchAssets(ctx, ids); err != nil {
		s.Wake()
	}
}

// PutAssets validates and stores assets, all or none; problems are named
// by index ("2.software.0.vendor") when batch is true. An asset whose
// hostname the organization has already is updated.
func (s *Service) PutAssets(ctx context.Context, orgID string, in []AssetInput, batch bool) ([]store.Asset, []bool, error) {
	var p valid.Problems
	if batch && (len(in) == 0 || len(in) > MaxAssetsPerRequest) {
		return nil, nil, valid.Field("body", "must be an asset or an array of 1 to 1000 assets")
	}
	seen := map[string]int{}
	for i := range in {
		prefix := ""
		if batch {
			prefix = strconv.Itoa(i) + "."
		}
		in[i].check(&p, prefix)
		if j, dup := seen[in[i].Hostname]; dup && in[i].Hostname != "" {
			p.Add(prefix+"hostname", "repeats the hostname of asset "+strconv.Itoa(j))
		}
		seen[in[i].Hostname] = i
	}
	if err := p.Err(); err != nil {
		return nil, nil, err
	}
	assets := make([]store.Asset, len(in))
	for i, a := range in {
		assets[i] = a.asset(orgID)
	}
	out, created, err := s.cfg.Store.PutAssets(ctx, orgID, assets)
	if err == nil {
		s.matchWritten(ctx, out)
	}
	return out, created, err
}

// AssetPatch changes the fields it sets.
type AssetPatch struct {
	Hostname *string           `json:"hostname"`
	IP       *string           `json:"ip"`
	OS       *string           `json:"os"`
	Owner    *string           `json:"owner"`
	Software *[]store.Software `json:"software"`
	// InternetFacing null or left out keeps it.
	InternetFacing *bool   `json:"internet_facing"`
	Identifier     *string `json:"identifier"`
}

// UpdateAsset changes the fields the patch sets; the result is validated
// whole.
func (s *Service) UpdateAsset(ctx context.Context, orgID, id string, patch AssetPatch) (store.Asset, error) {
	cur, err := s.cfg.Store.AssetByID(ctx, orgID, id)
	if err != nil {
		return store.Asset{}, err
	}
	in := AssetInput{Hostname: cur.Hostname, IP: cur.IP, OS: cur.OS, Owner: cur.Owner, Software: cur.Software, InternetFacing: cur.InternetFacing,
		Identifier: cur.Identifier}
	if patch.InternetFacing != nil {
		in.InternetFacing = *patch.InternetFacing
	}
	for _, f := range []struct {
		from *string
		to   *string
	}{{patch.Hostname, &in.Hostname}, {patch.IP, &in.IP}, {patch.OS, &in.OS}, {patch.Owner, &in.Owner}, {patch.Identifier, &in.Identifier}} {
		if f.from != nil {
			*f.to = *f.from
		}
	}
	if patch.Software != nil {
		in.Software = *patch.Software
	}
	var p valid.Problems
	in.check(&p, "")
	if err := p.Err(); err != nil {
		return store.Asset{}, err
	}
	a := in.asset(orgID)
	a.ID = id
	out, err := s.cfg.Store.UpdateAsset(ctx, a)
	if err == nil {
		s.matchWritten(ctx, []store.Asset{out})
	}
	return out, err
}

// Assets is a page of the organization's inventory.
func (s *Service) Assets(ctx context.Context, orgID string, p store.Page) ([]store.Asset, int, error) {
	return s.cfg.Store.Assets(ctx, orgID, p)
}

// Asset is one asset of the organization.
func (s *Service) Asset(ctx context.Context, orgID, id string) (store.Asset, error) {
	return s.cfg.Store.AssetByID(ctx, orgID, id)
}

// DeleteAsset removes an asset from the inventory and says which it was.
func (s *Service) DeleteAsset(ctx context.Context, orgID, id string) (store.Asset, error) {
	a, err := s.cfg.Store.AssetByID(ctx, orgID, id)
	if err != nil {
		return a, err
	}
	return a, s.cfg.Store.DeleteAsset(ctx, orgID, id)
}

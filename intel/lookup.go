package intel

import (
	"context"
	"errors"
	"time"

	"garrison/intel/cpe"
	"garrison/store"
)

// Record is what the store says of one CVE, for the threat researcher.
type Record struct {
	View      View
	UpdatedAt time.Time
}

// Lookup reads one CVE's view; false when the store does not hold it.
func (s *Service) Lookup(ctx context.Context, cveID string) (Record, bool, error) {
	id, ok := NormalizeCVEID(cveID)
	if !ok {
		return Record{}, false, nil
	}
	c, err := s.cfg.Store.IntelCVE(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return Record{}, false, nil
	}
	if err != nil {
		return Record{}, false, err
	}
	r, err := record(c)
	return r, err == nil, err
}

func record(c store.IntelCVE) (Record, error) {
	v, err := decodeView(c.ID, c.View)
	if err != nil {
		return Record{}, err
	}
	return Record{View: v, UpdatedAt: c.ViewAt}, nil
}

// Search finds CVEs of a vendor or product (a name such as "Fortinet" or
// "http_server"), newest id first.
func (s *Service) Search(ctx context.Context, name string, limit int) ([]Record, error) {
	found, err := s.cfg.Store.SearchIntel(ctx, cpe.Normalize(name), limit)
	if err != nil {
		return nil, err
	}
	out := make([]Record, 0, len(found))
	for _, c := range found {
		r, err := record(c)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// Status is what the intelligence store holds.
func (s *Service) Status(ctx context.Context) (store.IntelStatus, error) {
	return s.cfg.Store.IntelStatus(ctx)
}

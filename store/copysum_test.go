package store

import (
	"fmt"
	"testing"
)

// A value read from either engine becomes what its PostgreSQL column
// takes, or is refused.
func TestAsColumn(t *testing.T) {
	for _, c := range []struct {
		typ  string
		in   any
		want any
		ok   bool
	}{
		{"bigint", int64(7), int64(7), true},
		{"bigint", int32(7), int64(7), true},
		{"bigint", float64(7), int64(7), true},
		{"bigint", 7.5, nil, false},
		{"bigint", "7", nil, false},
		{"double precision", int64(2), float64(2), true},
		{"double precision", 0.25, 0.25, true},
		{"bytea", "ab", []byte("ab"), true},
		{"bytea", []byte("ab"), []byte("ab"), true},
		{"text", []byte("ab"), "ab", true},
		{"text", "ab", "ab", true},
		{"text", int64(1), nil, false},
		{"text", nil, nil, true},
	} {
		got, err := asColumn(c.typ, c.in)
		if (err == nil) != c.ok {
			t.Errorf("asColumn(%s, %#v): %v", c.typ, c.in, err)
			continue
		}
		if c.ok && fmtValue(got) != fmtValue(c.want) {
			t.Errorf("asColumn(%s, %#v) = %#v, want %#v", c.typ, c.in, got, c.want)
		}
	}
}

func fmtValue(v any) string {
	if b, ok := v.([]byte); ok {
		return "bytes:" + string(b)
	}
	return fmt.Sprintf("%T:%v", v, v)
}

// Sums of rows agree in any order, and differ when a value, its type or
// a row's boundary does.
func TestRowSum(t *testing.T) {
	sum := func(rows ...[]any) rowSum {
		var s rowSum
		for _, r := range rows {
			s.add(r)
		}
		return s
	}
	a, b := []any{int64(1), "x", nil}, []any{int64(2), "y", []byte("z")}
	if sum(a, b).value != sum(b, a).value || sum(a, b).rows != 2 {
		t.Fatal("the order of rows changes the sum")
	}
	for name, other := range map[string][]any{
		"value":   {int64(3), "y", []byte("z")},
		"type":    {int64(2), "y", "z"},
		"null":    {int64(2), "y", nil},
		"shifted": {int64(2), "yz", []byte("")},
	} {
		if sum(a, other).value == sum(a, b).value {
			t.Errorf("a different %s sums the same", name)
		}
	}
}

package sheet

import (
	"slices"
	"testing"
)

func TestSafe(t *testing.T) {
	in := []string{"", "plain", "=SUM(A1)", "+1", "-2", "@cmd", "\tx", "\rx", "a=b", "'quoted", "1-2"}
	want := []string{"", "plain", "'=SUM(A1)", "'+1", "'-2", "'@cmd", "'\tx", "'\rx", "a=b", "'quoted", "1-2"}
	if got := Safe(slices.Clone(in)...); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

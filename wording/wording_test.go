package wording

import (
	"testing"
	"time"
)

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n         int
		one, many string
		want      string
	}{
		{0, "user", "users", "0 users"},
		{1, "user", "users", "1 user"},
		{2, "user", "users", "2 users"},
		{1, "", "", "1"},
		{-1, "degree", "degrees", "-1 degrees"},
	} {
		if got := Count(tc.n, tc.one, tc.many); got != tc.want {
			t.Errorf("Count(%d, %q, %q) = %q, want %q", tc.n, tc.one, tc.many, got, tc.want)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 100000: "100,000", 1234567: "1,234,567", -2500: "-2,500"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestDays(t *testing.T) {
	for d, want := range map[time.Duration]string{24 * time.Hour: "1 day", 90 * 24 * time.Hour: "90 days", 36 * time.Hour: "1 day"} {
		if got := Days(d); got != want {
			t.Errorf("Days(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestAgree(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "expire"}, {1, "expires"}, {2, "expire"}} {
		if got := Agree(tc.n, "expires", "expire"); got != tc.want {
			t.Errorf("Agree(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestBytes(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "0 bytes"},
		{1, "1 byte"},
		{600, "600 bytes"},
		{1023, "1023 bytes"},
		{1024, "1.0 KiB"},
		{1536, "1.5 KiB"},
		{8 << 10, "8.0 KiB"},
		{1<<20 - 1, "1.0 MiB"},
		{1<<20 - 60, "1023.9 KiB"},
		{1 << 20, "1.0 MiB"},
		{15 << 20, "15.0 MiB"},
		{3 << 29, "1.5 GiB"},
		{5 << 40, "5.0 TiB"},
		{-2048, "-2.0 KiB"},
	} {
		if got := Bytes(tc.n); got != tc.want {
			t.Errorf("Bytes(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

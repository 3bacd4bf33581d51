package ratelimit

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Limit is N requests per Window, as a token bucket of capacity N refilled
// at N/Window.
type Limit struct {
	N      int
	Window time.Duration
}

// String formats the limit as ParseLimits reads it, e.g. "10/1m0s".
func (l Limit) String() string {
	return strconv.Itoa(l.N) + "/" + l.Window.String()
}

// validate reports why l cannot drive a bucket. N×Window must fit in an
// int64 because the bucket counts tokens in units of 1/N nanosecond-tokens.
func (l Limit) validate() error {
	switch {
	case l.N <= 0:
		return errors.New("count must be a positive integer")
	case l.Window <= 0:
		return errors.New("window must be a positive duration")
	case int64(l.Window) > math.MaxInt64/int64(l.N):
		return fmt.Errorf("%d per %s is too large: count × window must not exceed %s", l.N, l.Window, time.Duration(math.MaxInt64))
	}
	return nil
}

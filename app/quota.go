package app

import "syscall"

// diskShare is the default storage quota: share of what an organization
// stores plus the data directory's free space, so no tenant can take the
// whole disk. A zero share, or a disk whose space cannot be read, is no
// default quota.
func diskShare(dataDir string, share float64) func(orgBytes int64) int64 {
	if share <= 0 {
		return nil
	}
	return func(orgBytes int64) int64 {
		var fs syscall.Statfs_t
		if err := syscall.Statfs(dataDir, &fs); err != nil {
			return 1<<63 - 1
		}
		free := int64(fs.Bavail) * int64(fs.Bsize)
		return int64(float64(orgBytes+free) * share)
	}
}

package search

// CompactEarly makes indexes compact at their first dead slot, until the
// returned func restores the threshold.
func CompactEarly() (restore func()) {
	old := compactMin
	compactMin = 0
	return func() { compactMin = old }
}

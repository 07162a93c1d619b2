package snapshot

// SetReuse turns the read workers' buffer reuse on or off and sets the
// hook that sees a worker's buffer once a document is done with it; the
// returned function restores both.
func SetReuse(on bool, after func(buf []byte)) (restore func()) {
	was, hook := reuseReads, afterRead
	reuseReads, afterRead = on, after
	return func() { reuseReads, afterRead = was, hook }
}

package produce

// SetBeforeServe sets the hook that runs before a document's text is read
// again for an answer.
func SetBeforeServe(f func(rel string)) { beforeServe = f }

// ServesFocused reports whether r answers from an index focused on its
// questions rather than the full index.
func ServesFocused(r *Reader) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.index.Focused() != nil
}

package produce

// SetBeforeServe sets the hook that runs before a document's text is read
// again for an answer.
func SetBeforeServe(f func(rel string)) { beforeServe = f }

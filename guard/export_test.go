package guard

// HasControl exposes hasControl to the fuzz test.
var HasControl = hasControl

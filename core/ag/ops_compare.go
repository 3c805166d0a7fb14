package ag

// Comparison wrappers (core/op elementwise.go). Their outputs are bool and
// carry no gradient; they exist so masks can be built from Vars inside a
// model (with Where, Cast) without leaving the ag API.

// Greater returns a > b as a bool value (broadcast).
func Greater(a, b *Var) *Var { return apply1("greater", nil, a, b) }

// GreaterEqual returns a >= b as a bool value (broadcast).
func GreaterEqual(a, b *Var) *Var { return apply1("greater_equal", nil, a, b) }

// Less returns a < b as a bool value (broadcast).
func Less(a, b *Var) *Var { return apply1("less", nil, a, b) }

// LessEqual returns a <= b as a bool value (broadcast).
func LessEqual(a, b *Var) *Var { return apply1("less_equal", nil, a, b) }

// Equal returns a == b as a bool value (broadcast).
func Equal(a, b *Var) *Var { return apply1("equal", nil, a, b) }

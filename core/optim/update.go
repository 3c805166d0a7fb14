package optim

import "paddle/core/op"

// The update rules are fused primitives of core/op (optim_update.go there):
// one pass over the elements, replaceable by a backend by name.
var sgdDef, adamDef, rmspropDef = op.Lookup("sgd_update"), op.Lookup("adam_update"), op.Lookup("rmsprop_update")

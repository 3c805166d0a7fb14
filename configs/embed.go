// Package configs holds the model configs that ship inside the paddle binary.
//
// Every file under configs/ is embedded (hidden and `_`-prefixed files and
// directories too, so `_base_/` folders come along); the configs are the
// `*.yaml` files, laid out as configs/<kit>/.../<name>.yaml. They are used by
// name, relative to this folder: `paddle clas train -c clas/lenet_mnist.yaml`
// works from any directory, while a real file at that path on disk wins (see
// core/config.Load). Keep only configs (and their `_base_` files) here.
package configs

import "embed"

// FS is the embedded tree of configs, rooted at this folder: "clas/lenet_mnist.yaml".
//
//go:embed all:*
var FS embed.FS

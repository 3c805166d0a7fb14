// Package config loads model configs: YAML files in each upstream kit's own
// layout (PaddleOCR, PaddleClas, PaddleDetection, PaddleSeg), resolved,
// overridden from the command line and decoded strictly, with errors that
// name the file, the line and the key path:
//
//	configs/ocr/x.yaml:12: Optimizer.lr.learning_rate: expected a number, got "fast"
//
// It uses gopkg.in/yaml.v3 only (viper lowercases keys; it handles process
// settings elsewhere).
//
// Where things are:
//
//   - load.go: Load / LoadKit / LoadFS / Options.Load / Parse, finding files (disk
//     first, then the configs embedded in the binary, package paddle/configs),
//     `_BASE_` / `_base_` inheritance with cycle detection, anchors, KitOf,
//     Names (the embedded configs).
//   - parse.go: one file's YAML to a node tree: syntax errors with lines,
//     anchors and `<<` expanded, duplicate keys refused.
//   - merge.go: how a file lays over its bases (maps merge, the rest replaces;
//     PaddleSeg's `_inherited_: false`).
//   - override.go: `-o Section.key.sub=value`, Node / Has / Set, YAML, Save.
//   - decode.go: Error, strict Decode into Go structs, Ignored keys.
//   - component.go: Component slots and the three ways a config names one.
//   - schema.go: per-kit Schema, Register, Validate, "did you mean" hints.
//
// The flow: Load merges the files into one yaml.Node tree (Config.Root),
// applies overrides (a key the file lacks must be known to the kit's schema),
// then a kit calls Validate(schema) once to report every problem at once, and
// Decode / Component.Decode to fill its typed options.
//
// Components. A field of type Component is a slot; the schema's Components
// table maps slot patterns ("Architecture.Backbone", "Train.dataset.transforms.*",
// "*.backbone") to the names allowed there and their options types. The slot
// names its component in one of three ways, told apart by shape:
//
//	Backbone: {name: MobileNetV3, scale: 0.5}  # PaddleOCR/PaddleClas `name:`, PaddleSeg `type:`
//	- DecodeImage: {img_mode: BGR}             # one-key map: transforms, losses, metrics
//	backbone: DarkNet                          # PaddleDetection: options in the top-level
//	DarkNet: {depth: 53}                       #   section named after the component
//
// Overrides split on the first '=' and parse the value as YAML, so
// `-o Global.image_shape=[3,32,32]`, `-o Global.use_amp=false` and
// `-o Train.loader.batch_size=8` get their types. An override replaces the
// node at its path (maps are not merged: set sub-keys one by one to keep the
// rest). Types are checked when the config is decoded.
//
// A Config may be read and decoded from several goroutines; Set must not
// run concurrently with anything else on the same Config.
//
// The resolved config (YAML, Save) keeps keys in order and their case and has
// no `_BASE_` keys; it is what checkpoints and exports carry.
package config

package op

import "fmt"

// AttrKind says how a shape-valued input becomes an attribute value.
type AttrKind int

// The ways a shape-valued input is read.
const (
	// AttrInts reads a 1-D integer tensor as []int; an empty tensor leaves the attribute unset.
	AttrInts AttrKind = iota
	// AttrInt reads the single element as int.
	AttrInt
	// AttrFloat reads the single element as float64.
	AttrFloat
	// AttrFloats reads the tensor as []float64; an empty tensor leaves the attribute unset.
	AttrFloats
	// AttrReshape reads ONNX Reshape's shape: a 0 copies the input's dimension.
	AttrReshape
	// AttrIntsKeepEmpty is AttrInts, but an empty tensor sets an empty list
	// (reductions with noop_with_empty_axes reduce nothing).
	AttrIntsKeepEmpty
	// AttrResizeScales reads ONNX Resize's 4 scales as [sh, sw] (N and C scales must be 1).
	AttrResizeScales
	// AttrResizeSizes reads ONNX Resize's 4 sizes as [oh, ow] (N and C must be unchanged).
	AttrResizeSizes
)

var attrKindNames = [...]string{"ints", "int", "float", "floats", "reshape", "ints_keep_empty", "resize_scales", "resize_sizes"}

// String returns the kind's name as the dump shows it ("ints", "reshape", ...).
func (k AttrKind) String() string {
	if int(k) < len(attrKindNames) {
		return attrKindNames[k]
	}
	return fmt.Sprintf("AttrKind(%d)", int(k))
}

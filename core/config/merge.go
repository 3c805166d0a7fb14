package config

import "gopkg.in/yaml.v3"

// inheritedKey is PaddleSeg's switch: a map with `_inherited_: false`
// replaces the map it would otherwise merge into.
const inheritedKey = "_inherited_"

// merge lays src over dst and returns the result, reusing (and changing) dst
// where both are maps: src's keys win, maps merge key by key, everything else
// (lists, scalars, a map meeting a non-map) is replaced by src. Keys new in
// src are appended after dst's, so a base file's order leads.
func merge(dst, src *yaml.Node) *yaml.Node {
	if dst == nil {
		return src
	}
	if dst.Kind != yaml.MappingNode || src.Kind != yaml.MappingNode || !inherits(src) {
		return src
	}
	for i := 0; i+1 < len(src.Content); i += 2 {
		k, v := src.Content[i], src.Content[i+1]
		if k.Value == inheritedKey {
			continue
		}
		j := indexOf(dst, k.Value)
		if j < 0 {
			dst.Content = append(dst.Content, k, v)
			continue
		}
		if dst.Content[j+1].Kind == yaml.MappingNode && v.Kind == yaml.MappingNode && inherits(v) {
			dst.Content[j+1] = merge(dst.Content[j+1], v)
			continue
		}
		dst.Content[j], dst.Content[j+1] = k, v // the winning key carries the line to report
	}
	return dst
}

// inherits reports whether map n merges into what it overlays (the default).
func inherits(n *yaml.Node) bool {
	_, v := mapGet(n, inheritedKey)
	return v == nil || v.Kind != yaml.ScalarNode || v.Value != "false" && v.Value != "False"
}

// stripInherited removes every `_inherited_` key under n.
func stripInherited(n *yaml.Node) {
	if n.Kind == yaml.MappingNode {
		if j := indexOf(n, inheritedKey); j >= 0 {
			n.Content = append(n.Content[:j], n.Content[j+2:]...)
		}
	}
	for _, c := range n.Content {
		stripInherited(c)
	}
}

// indexOf returns the index of key's key node in mapping n, or -1.
func indexOf(n *yaml.Node, key string) int {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return i
		}
	}
	return -1
}

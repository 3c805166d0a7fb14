package workflow

import "paddle/core/config"

// InferenceSchema is the schema of an export's inference.yaml whose
// PreProcess and PostProcess sections decode into pre and post (typed nil
// pointers, as config.Schema's sections are), with Global and Inputs as
// InferenceGlobal and []InferenceInput. ops are the components allowed in
// PreProcess.transform_ops, chosen by the key selector ("name" or "type").
func InferenceSchema(pre, post any, ops map[string]any, selector string) *config.Schema {
	return &config.Schema{
		Sections: map[string]any{
			"Global":      (*InferenceGlobal)(nil),
			"PreProcess":  pre,
			"PostProcess": post,
			"Inputs":      (*[]InferenceInput)(nil),
		},
		Components: map[string]map[string]any{"PreProcess.transform_ops.*": ops},
		Selector:   selector,
	}
}

// DecodeInference decodes the PreProcess and PostProcess sections of an
// inference.yaml that ReadExport returned into pre and post, and returns
// its Inputs.
func DecodeInference(cfg *config.Config, pre, post any) ([]InferenceInput, error) {
	var inputs []InferenceInput
	for _, s := range []struct {
		key string
		v   any
	}{{"PreProcess", pre}, {"PostProcess", post}, {"Inputs", &inputs}} {
		if err := cfg.Decode(s.key, s.v); err != nil {
			return nil, err
		}
	}
	return inputs, nil
}

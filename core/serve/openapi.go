package serve

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
)

// obj is a JSON object of the OpenAPI document.
type obj = map[string]any

// openAPI returns the OpenAPI 3.1 document of a server of kits: each kit's
// POST /v1/<kit> (its request encodings and its record's JSON Schema, derived
// from Kit.Record), GET /healthz, GET /openapi.json, GET /metrics and GET /.
func openAPI(kits []Kit) obj {
	paths := obj{}
	var names []string
	for _, k := range kits {
		names = append(names, k.Name)
		rec := schemaOf(reflect.TypeOf(k.Record), map[reflect.Type]bool{})
		if k.RecordDoc != "" {
			rec["description"] = k.RecordDoc
		}
		paths["/v1/"+k.Name] = obj{"post": obj{
			"operationId": "predict_" + strings.ReplaceAll(k.Name, "-", "_"),
			"summary":     "Predict one " + k.Input + " with the loaded " + k.Name + " model",
			"description": "The answer is the record `paddle " + k.Name + " predict --format jsonl` writes for one input; " +
				"its input key holds the request's name (multipart file name, JSON \"name\" or ?name=).",
			"parameters": []any{obj{"name": "name", "in": "query", "required": false,
				"description": "a name for the input, echoed in the record", "schema": obj{"type": "string"}}},
			"requestBody": obj{"required": true, "content": requestContent(k.Input)},
			"responses": obj{
				"200": obj{"description": "the record", "content": obj{"application/json": obj{"schema": rec}}},
				"400": errResponse("the input cannot be read"),
				"408": errResponse("the body was not received within the server's --read-timeout"),
				"413": errResponse("the body is larger than the server's --max-body"),
				"500": errResponse("the model failed"),
				"503": errResponse("busy: --concurrency requests run and --queue wait; retry after Retry-After seconds"),
				"504": errResponse("no answer within the server's --timeout"),
			},
		}}
	}
	paths["/healthz"] = obj{"get": obj{"operationId": "health", "summary": "The server's state",
		"responses": obj{"200": obj{"description": "with one kit its state; with several {\"status\", \"kits\": [state, ...]}",
			"content": obj{"application/json": obj{"schema": obj{"type": "object", "properties": obj{"status": obj{"const": "ok"}}}}}}}}}
	paths["/openapi.json"] = obj{"get": obj{"operationId": "openapi", "summary": "This document",
		"responses": obj{"200": obj{"description": "OpenAPI 3.1", "content": obj{"application/json": obj{"schema": obj{"type": "object"}}}}}}}
	paths["/metrics"] = obj{"get": obj{"operationId": "metrics", "summary": "Prometheus metrics (text format 0.0.4)",
		"responses": obj{"200": obj{"description": "requests by kit and code, errors, latency histogram, in flight, model load time",
			"content": obj{"text/plain": obj{"schema": obj{"type": "string"}}}}}}}
	paths["/"] = obj{"get": obj{"operationId": "page", "summary": "A page to try the kits in a browser (?demo=1 sends a shipped sample)",
		"responses": obj{"200": obj{"description": "HTML", "content": obj{"text/html": obj{"schema": obj{"type": "string"}}}}}}}
	return obj{
		"openapi": "3.1.0",
		"info": obj{"title": "paddle serve " + strings.Join(names, " "), "version": "1",
			"description": "Predictions of paddle's kits from models loaded once. Errors are {\"error\": string}."},
		"paths": paths,
		"components": obj{"schemas": obj{"Error": obj{"type": "object", "required": []any{"error"},
			"properties": obj{"error": obj{"type": "string"}}}}},
		// The page reads which kits there are and what each takes from here.
		"x-paddle-kits": kitList(kits),
	}
}

func kitList(kits []Kit) []any {
	var l []any
	for _, k := range kits {
		l = append(l, obj{"name": k.Name, "input": k.Input, "path": "/v1/" + k.Name})
	}
	return l
}

func errResponse(desc string) obj {
	return obj{"description": desc, "content": obj{"application/json": obj{"schema": obj{"$ref": "#/components/schemas/Error"}}}}
}

// requestContent is what a kit of the input modality accepts: the raw body,
// multipart/form-data or JSON (input.go).
func requestContent(input string) obj {
	binary := obj{"type": "string", "contentMediaType": "application/octet-stream"}
	name := obj{"type": "string", "description": "a name for the input, echoed in the record"}
	switch input {
	case InputText, InputSMILES:
		what := "one text (UTF-8)"
		if input == InputSMILES {
			what = "one molecule as SMILES"
		}
		return obj{
			"text/plain": obj{"schema": obj{"type": "string", "description": what}},
			"application/json": obj{"schema": obj{"type": "object", "required": []any{"text"},
				"properties": obj{"text": obj{"type": "string", "description": what}, "name": name}}},
		}
	}
	key := input // image or audio
	return obj{
		input + "/*":               obj{"schema": binary},
		"application/octet-stream": obj{"schema": binary},
		"multipart/form-data": obj{"schema": obj{"type": "object",
			"properties": obj{"image": obj{"type": "string", "contentMediaType": "application/octet-stream",
				"description": "the " + input + " file (field \"image\", or else the first file part)"}}}},
		"application/json": obj{"schema": obj{"type": "object", "required": []any{key},
			"properties": obj{key: obj{"type": "string", "contentEncoding": "base64",
				"description": "the " + input + " file, base64 (standard or URL-safe, or a data: URL)"}, "name": name}}},
	}
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// schemaOf derives the JSON Schema (2020-12, as OpenAPI 3.1 uses) of the JSON
// encoding/json writes for values of t: structs by their json tags, slices,
// arrays, maps and the basic kinds. A type with its own MarshalJSON, an
// interface or a nil t is any object; seen stops recursive types.
func schemaOf(t reflect.Type, seen map[reflect.Type]bool) obj {
	if t == nil {
		return obj{"type": "object"}
	}
	if t.Kind() == reflect.Pointer {
		s := schemaOf(t.Elem(), seen)
		return obj{"anyOf": []any{s, obj{"type": "null"}}}
	}
	if t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler) {
		return obj{"type": "object"}
	}
	if t.Implements(textMarshaler) {
		return obj{"type": "string"}
	}
	switch t.Kind() {
	case reflect.Bool:
		return obj{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return obj{"type": "integer"}
	case reflect.Uint8:
		return obj{"type": "integer", "minimum": 0, "maximum": 255}
	case reflect.Float32, reflect.Float64:
		return obj{"type": "number"}
	case reflect.String:
		return obj{"type": "string"}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return obj{"type": "string", "contentEncoding": "base64"}
		}
		return obj{"type": []any{"array", "null"}, "items": schemaOf(t.Elem(), seen)}
	case reflect.Array:
		return obj{"type": "array", "items": schemaOf(t.Elem(), seen), "minItems": t.Len(), "maxItems": t.Len()}
	case reflect.Map:
		return obj{"type": "object", "additionalProperties": schemaOf(t.Elem(), seen)}
	case reflect.Struct:
		if seen[t] {
			return obj{"type": "object"}
		}
		seen[t] = true
		defer delete(seen, t)
		props, req := obj{}, []any{}
		structFields(t, seen, props, &req)
		s := obj{"type": "object", "properties": props}
		if len(req) > 0 {
			s["required"] = req
		}
		return s
	}
	return obj{}
}

// structFields adds t's JSON fields (embedded structs' inlined) to props;
// those without omitempty/omitzero are required.
func structFields(t reflect.Type, seen map[reflect.Type]bool, props obj, req *[]any) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				structFields(ft, seen, props, req)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		props[name] = schemaOf(f.Type, seen)
		if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") {
			*req = append(*req, name)
		}
	}
}

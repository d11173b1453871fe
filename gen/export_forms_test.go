package gen

import "github.com/mcpgen/mcpgen/model"

// FormDecoders returns the decoder a generated file declares for each
// form, by the form's Go name, for the handler harness.
func FormDecoders(h *model.Handlers) (map[string]string, error) {
	g, err := newHandlerGen(h)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, f := range h.Forms {
		out[f.GoName] = g.names.form(formDecode, f)
	}
	return out, nil
}

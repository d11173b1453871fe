package schema

import (
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/model"
)

// The unions whose members are the methods each side sends.
var directionUnions = []struct {
	Union        string
	Dir          model.Direction
	Notification bool
}{
	{"ClientRequest", model.ClientToServer, false},
	{"ServerRequest", model.ServerToClient, false},
	{"ClientNotification", model.ClientToServer, true},
	{"ServerNotification", model.ServerToClient, true},
}

// buildMethods derives the method table from each version's Client*/Server*
// unions and the method consts of their members, or, for a version without
// those unions (an extension's schema), from its definitions (see
// definedMethods); byName holds the merged named types, and the methods of
// the definitions named in extern are left to the package that owns them.
func buildMethods(vers []*version, byName map[string]*model.Type, extern map[string]bool) ([]*model.Method, error) {
	methods := map[string]*model.Method{}
	for _, ver := range vers {
		if !ver.hasDirectionUnions() {
			if err := ver.definedMethods(methods, extern); err != nil {
				return nil, err
			}
			continue
		}
		for _, du := range directionUnions {
			u := ver.types[du.Union]
			if u == nil {
				continue
			}
			var members []string
			switch u.Kind {
			case model.Union:
				for _, v := range u.Variants {
					if v.Type.Kind != model.Ref {
						return nil, model.Errorf(u.Pos, "%s lists a variant that is not a definition", du.Union)
					}
					members = append(members, v.Type.Target)
				}
			case model.Alias:
				members = append(members, u.Target)
			default:
				return nil, model.Errorf(u.Pos, "%s is a %s, not a union of messages", du.Union, u.Kind)
			}
			for _, name := range members {
				msg := ver.resolve(name)
				if msg == nil || msg.Kind != model.Struct {
					return nil, model.Errorf(u.Pos, "%s lists %s, which is not an object", du.Union, name)
				}
				mf := msg.Field("method")
				if mf == nil || mf.Type.Kind != model.Primitive || mf.Type.Prim != model.String || mf.Type.Const == "" {
					return nil, model.Errorf(msg.Pos, "%s has no constant method property", name)
				}
				method := strings.Trim(mf.Type.Const, `"`)
				me := methods[method]
				if me == nil {
					me = &model.Method{Name: method, Notification: du.Notification}
					methods[method] = me
				}
				if me.Notification != du.Notification {
					return nil, model.Errorf(msg.Pos, "%s is a request in one union and a notification in another", method)
				}
				if me.Message == "" || ver.v == model.Version(len(vers)-1) || me.Message == du.Union {
					me.Message = name
				}
				me.Direction |= du.Dir
				me.Versions |= model.Only(ver.v)
			}
		}
	}
	// Pair requests and results in name order, so that of several
	// mistakes the same one is reported every time.
	out := make([]*model.Method, 0, len(methods))
	for _, me := range methods {
		out = append(out, me)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	for _, me := range out {
		msg := byName[me.Message]
		if msg == nil || msg.Kind != model.Struct {
			return nil, model.Errorf(model.Pos{}, "method %s: message type %s is missing", me.Name, me.Message)
		}
		if p := msg.Field("params"); p != nil {
			if p.Type.Kind == model.Ref {
				me.Params = p.Type.Target
			}
			me.ParamsRequired = p.Required
		}
		if me.Notification {
			continue
		}
		base := strings.TrimSuffix(me.Message, "Request")
		if ov, ok := resultOverrides[me.Name]; ok {
			me.Result, me.ResultNote = ov.Result, ov.Reason
		} else if byName[base+"Result"] != nil {
			me.Result = base + "Result"
		} else {
			return nil, model.Errorf(msg.Pos, "method %s: no %sResult type and no entry in the override table pairs %s with its result", me.Name, base, me.Message)
		}
		if byName[me.Result] == nil {
			return nil, model.Errorf(msg.Pos, "method %s: result type %s does not exist", me.Name, me.Result)
		}
		if byName[base+"ResultResponse"] != nil {
			me.Response = base + "ResultResponse"
		}
	}
	return out, nil
}

// hasDirectionUnions reports whether the version lists its methods in any
// of the Client*/Server* unions.
func (ver *version) hasDirectionUnions() bool {
	for _, du := range directionUnions {
		if ver.types[du.Union] != nil {
			return true
		}
	}
	return false
}

// definedMethods adds to methods those of a version that lists them in no
// union, as an extension's schema does: each definition of its own (not a
// hoisted type, not a copy of core named in extern) that is an object with
// a constant method and a params property is a message, a request when it
// has a JSON-RPC id and a notification when it has none. The schema does not
// say who sends each one, so extensionDirections does, and a method it does
// not list is an error rather than a guess.
func (ver *version) definedMethods(methods map[string]*model.Method, extern map[string]bool) error {
	for _, name := range ver.order {
		msg := ver.types[name]
		if msg.Synthetic || extern[ver.owner[name]] || msg.Kind != model.Struct || msg.Field("params") == nil {
			continue
		}
		mf := msg.Field("method")
		if mf == nil || mf.Type.Kind != model.Primitive || mf.Type.Prim != model.String || mf.Type.Const == "" {
			continue
		}
		method := strings.Trim(mf.Type.Const, `"`)
		dir, ok := extensionDirections[method]
		if !ok {
			return model.Errorf(msg.Pos, "method %s of %s: the schema does not say which side sends it; add it to extensionDirections", method, name)
		}
		if old := methods[method]; old != nil {
			return model.Errorf(msg.Pos, "method %s is defined by both %s and %s", method, old.Message, name)
		}
		methods[method] = &model.Method{
			Name:         method,
			Notification: msg.Field("id") == nil,
			Message:      name,
			Direction:    dir.Dir,
			Versions:     model.Only(ver.v),
		}
	}
	return nil
}

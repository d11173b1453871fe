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
// unions and the method consts of their members; byName holds the merged
// named types.
func buildMethods(vers []*version, byName map[string]*model.Type) ([]*model.Method, error) {
	methods := map[string]*model.Method{}
	for _, ver := range vers {
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

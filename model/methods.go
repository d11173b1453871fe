package model

import (
	"sort"
	"strings"
)

// The unions whose members are the methods each side sends.
var directionUnions = []struct {
	Union        string
	Dir          Direction
	Notification bool
}{
	{"ClientRequest", ClientToServer, false},
	{"ServerRequest", ServerToClient, false},
	{"ClientNotification", ClientToServer, true},
	{"ServerNotification", ServerToClient, true},
}

// buildMethods derives the method table from each version's Client*/Server*
// unions and the method consts of their members.
func (m *Model) buildMethods(vers []*version) error {
	byName := map[string]*Method{}
	for _, ver := range vers {
		for _, du := range directionUnions {
			u := ver.types[du.Union]
			if u == nil {
				continue
			}
			var members []string
			switch u.Kind {
			case Union:
				for _, v := range u.Variants {
					if v.Type.Kind != Ref {
						return Errorf(u.Pos, "%s lists a variant that is not a definition", du.Union)
					}
					members = append(members, v.Type.Target)
				}
			case Alias:
				members = append(members, u.Target)
			default:
				return Errorf(u.Pos, "%s is a %s, not a union of messages", du.Union, u.Kind)
			}
			for _, name := range members {
				msg := ver.resolve(name)
				if msg == nil || msg.Kind != Struct {
					return Errorf(u.Pos, "%s lists %s, which is not an object", du.Union, name)
				}
				mf := msg.Field("method")
				if mf == nil || mf.Type.Kind != Primitive || mf.Type.Prim != String || mf.Type.Const == "" {
					return Errorf(msg.Pos, "%s has no constant method property", name)
				}
				method := strings.Trim(mf.Type.Const, `"`)
				me := byName[method]
				if me == nil {
					me = &Method{Name: method, Notification: du.Notification}
					byName[method] = me
				}
				if me.Notification != du.Notification {
					return Errorf(msg.Pos, "%s is a request in one union and a notification in another", method)
				}
				if me.Message == "" || ver.v == Version(len(vers)-1) || me.Message == du.Union {
					me.Message = name
				}
				me.Direction |= du.Dir
				me.Versions |= Only(ver.v)
			}
		}
	}
	for _, me := range byName {
		msg := m.byName[me.Message]
		if msg == nil || msg.Kind != Struct {
			return Errorf(Pos{}, "method %s: message type %s is missing", me.Name, me.Message)
		}
		if p := msg.Field("params"); p != nil {
			if p.Type.Kind == Ref {
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
		} else if m.byName[base+"Result"] != nil {
			me.Result = base + "Result"
		} else {
			return Errorf(msg.Pos, "method %s: no %sResult type and no entry in the override table pairs %s with its result", me.Name, base, me.Message)
		}
		if m.byName[me.Result] == nil {
			return Errorf(msg.Pos, "method %s: result type %s does not exist", me.Name, me.Result)
		}
		if m.byName[base+"ResultResponse"] != nil {
			me.Response = base + "ResultResponse"
		}
	}
	for _, me := range byName {
		m.Methods = append(m.Methods, me)
	}
	sort.Slice(m.Methods, func(i, j int) bool { return m.Methods[i].Name < m.Methods[j].Name })
	return nil
}

package forms

import "context"

// Seat is a class of travel: its constants make it an enum.
type Seat string

const (
	Economy  Seat = "economy"
	Business Seat = "business"
)

// TripDetails is what the book tool asks its user.
//
//mcp:form
type TripDetails struct {
	// Where to.
	City string `json:"city" mcp:"title=City,minLength=2,maxLength=40"`
	// The traveller's address for the tickets.
	Email string `json:"email" mcp:"format=email"`
	// First night.
	From string `json:"from" mcp:"format=date"`
	// How many nights.
	Nights int `json:"nights" mcp:"minimum=1,maximum=30"`
	// Seat class.
	Seat Seat `json:"seat,omitempty" mcp:"default=economy"`
	// Budget per night.
	Budget *float64 `json:"budget,omitempty" mcp:"minimum=0"`
	// Whether to book a hotel too.
	Hotel bool `json:"hotel" mcp:"default=true"`
	// Meal preference.
	Meal string `json:"meal,omitempty" mcp:"enum=none|vegetarian|vegan"`
	// A page with the traveller's plans.
	Link string `json:"link,omitempty" mcp:"format=uri"`
}

// confirmation is an unexported form: its asker is unexported too.
//
//mcp:form
type confirmation struct {
	OK bool `json:"ok"`
}

// Book books a trip. The package does not call ElicitTripDetails: a
// golden package compiles without its generated file.
//
//mcp:tool
func Book(ctx context.Context) (string, error) {
	return "booked", nil
}

type (
	// note is a form declared in a group: the directive is in the
	// type's own doc comment.
	//
	//mcp:form
	note struct {
		Text string `json:"text" mcp:"maxLength=200"`
	}
)

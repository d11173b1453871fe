package oauth_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/client/oauth"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// A client for a user: the authorization code grant, with the browser as
// the user agent.
func ExampleNewTransport() {
	cfg := oauth.Config{
		RedirectURL: "http://127.0.0.1:8976/callback",
		// Authorize opens the URL in the user's browser and waits for the
		// request to the redirect URL (a local listener, not shown).
		Authorize: func(ctx context.Context, authURL string) (string, error) {
			fmt.Println("open", authURL)
			return waitForCallback(ctx)
		},
		ClientIDMetadataURL: "https://app.example/oauth/client.json",
		ClientName:          "Example",
		OfflineAccess:       true,
	}
	if err := cfg.Check(); err != nil {
		log.Fatal(err)
	}
	tr := oauth.NewTransport(cfg, nil)
	t := streamable.NewClientTransport("https://mcp.example/mcp", &streamable.ClientOptions{HTTPClient: tr.Client()})
	sess, err := client.New(mcp.Implementation{Name: "example", Version: "1.0"}, nil).Connect(context.Background(), t)
	if err != nil {
		log.Fatal(err)
	}
	defer sess.Close()
}

// A service acting on its own behalf: the client credentials grant with a
// private_key_jwt assertion.
func ExampleConfig_clientCredentials() {
	pemKey, err := os.ReadFile("client-key.pem")
	if err != nil {
		log.Fatal(err)
	}
	key, err := oauth.ParsePrivateKey(pemKey)
	if err != nil {
		log.Fatal(err)
	}
	tr := oauth.NewTransport(oauth.Config{
		Grant: oauth.GrantClientCredentials,
		Clients: []oauth.Registration{{
			Issuer:     "https://auth.example",
			ClientID:   "reporting-service",
			PrivateKey: key,
			AuthMethod: oauth.AuthPrivateKeyJWT,
		}},
	}, nil)
	_ = &http.Client{Transport: tr} // or tr.Client(), for streamable.ClientOptions.HTTPClient
}

func waitForCallback(context.Context) (string, error) { return "", nil }

package admin

import "github.com/kalends/kalends/web/ui"

// handler holds the dependencies of the admin handlers.
type handler struct{ d *ui.Deps }

// Package api serves the JSON API under /cal/events/v1: the route table
// (every route, method and argument, declared once as data), the argument
// pipeline, the WordPress-shaped errors, the presenters of records, the
// authentication middleware, the handlers per resource, the namespace index,
// OPTIONS and the OpenAPI document. It holds no SQL and no HTML.
package api

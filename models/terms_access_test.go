package models_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TermAccess shows the admin's controls exactly to those the term
// operations let through: authors and up for categories, editors and up
// for tags (SPEC §6), nobody signed out.
func TestTermAccessMatchesTheOperations(t *testing.T) {
	t.Parallel()
	want := map[string]int{models.TaxCategory: 3, models.TaxTag: 4}
	roles := append([]models.Role{""}, models.Roles...)
	for tax, min := range want {
		for _, role := range roles {
			var u *models.User
			if role != "" {
				u = &models.User{ID: 7, Role: role}
			}
			allowed := rank[role] >= min
			got := models.TermAccess(u, tax)
			if got != (models.TermAdminAccess{Create: allowed, Edit: allowed, Delete: allowed}) {
				t.Errorf("TermAccess(%q, %s) = %+v, want all %v", role, tax, got, allowed)
			}
		}
	}
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		c := newCast(t, db)
		for _, tax := range []string{models.TaxCategory, models.TaxTag} {
			for i, u := range c.roles {
				a := models.TermAccess(u, tax)
				_, err := db.CreateTerm(ctx, u, tax, models.TermInput{Name: ptr(fmt.Sprintf("access %d", i))}, "en")
				if a.Create != (err == nil) || (err != nil && !errors.Is(err, models.ErrForbidden)) {
					t.Errorf("%s as %s: TermAccess %+v, CreateTerm error %v", tax, who(u), a, err)
				}
			}
		}
	})
}

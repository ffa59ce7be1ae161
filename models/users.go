package models

import (
	"context"
	"errors"
)

// ErrBadCredentials: the login or password is wrong (never says which).
var ErrBadCredentials = errors.New("models: bad credentials")

// NewUser holds what creating a user needs.
type NewUser struct {
	Login       string
	Password    string
	Email       string
	DisplayName string
	Role        Role
}

// AuthenticateAppPassword checks an application password of login (spaces
// in password ignored) and returns its user, recording the use. A wrong
// login and a wrong password take the same time and both give
// ErrBadCredentials.
//
// STUB: the infra work replaces this file with the real users store.
func (s *Store) AuthenticateAppPassword(ctx context.Context, login, password, ip string) (*User, error) {
	return nil, ErrBadCredentials
}

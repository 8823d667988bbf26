package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The 1.0 notification params live in the spec's notifications.schema.json,
// which the 1.0 schema file here does not carry; their shapes are the ones
// ../shared/ahp-1.0/README.md gives, written by hand.

// SessionAddedParams is root/sessionAdded.
type SessionAddedParams struct {
	Channel URI            `json:"channel"`
	Summary SessionSummary `json:"summary"`
}

// SessionRemovedParams is root/sessionRemoved.
type SessionRemovedParams struct {
	Channel URI `json:"channel"`
	Session URI `json:"session"`
}

// SessionSummaryChangedParams is root/sessionSummaryChanged. Changes holds
// the mutable SessionSummary fields that changed, all optional.
type SessionSummaryChangedParams struct {
	Channel URI                   `json:"channel"`
	Session URI                   `json:"session"`
	Changes PartialSessionSummary `json:"changes"`
}

// PartialSessionSummary is the changed fields of a SessionSummary; an
// absent (or null) field did not change.
type PartialSessionSummary struct {
	Provider           *string                    `json:"provider,omitempty"`
	Title              *string                    `json:"title,omitempty"`
	Status             *SessionStatus             `json:"status,omitempty"`
	Activity           *string                    `json:"activity,omitempty"`
	Origin             *SessionOrigin             `json:"origin,omitempty"`
	Project            *ProjectInfo               `json:"project,omitempty"`
	WorkingDirectories []URI                      `json:"workingDirectories,omitzero"`
	Annotations        *AnnotationsSummary        `json:"annotations,omitempty"`
	Resource           *URI                       `json:"resource,omitempty"`
	CreatedAt          *string                    `json:"createdAt,omitempty"`
	ModifiedAt         *string                    `json:"modifiedAt,omitempty"`
	Changes            *ChangesSummary            `json:"changes,omitempty"`
	Meta               map[string]json.RawMessage `json:"_meta,omitzero"`
	Chats              []SessionChatSummary       `json:"chats,omitzero"`
	DefaultChat        *URI                       `json:"defaultChat,omitempty"`
}

// ProgressParams is root/progress.
type ProgressParams struct {
	Channel       URI      `json:"channel"`
	ProgressToken string   `json:"progressToken"`
	Progress      float64  `json:"progress"`
	Total         *float64 `json:"total,omitempty"`
	Message       *string  `json:"message,omitempty"`
}

// AuthRequiredReason is auth/required's reason, @nonexhaustive: an unknown
// value is kept.
type AuthRequiredReason string

const (
	AuthRequiredReasonRequired AuthRequiredReason = "required"
	AuthRequiredReasonExpired  AuthRequiredReason = "expired"
)

// AuthRequiredParams is auth/required. Since 0.8 resource is the full
// ProtectedResourceMetadata; a vendored 0.9/1.0-period schema still types
// it as the identifier string (DELTA §3.2). Both decode: a string becomes
// metadata holding only Resource, and re-encodes as the string it was.
type AuthRequiredParams struct {
	Channel  URI                  `json:"channel"`
	Resource AuthRequiredResource `json:"resource"`
	Reason   *AuthRequiredReason  `json:"reason,omitempty"`
}

// AuthRequiredResource is auth/required's resource in either form.
type AuthRequiredResource struct {
	ProtectedResourceMetadata
	// AsString: the host sent the bare identifier.
	AsString bool
}

func (r AuthRequiredResource) MarshalJSON() ([]byte, error) {
	if r.AsString {
		return json.Marshal(r.Resource)
	}
	return json.Marshal(r.ProtectedResourceMetadata)
}

func (r *AuthRequiredResource) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		*r = AuthRequiredResource{AsString: true}
		return json.Unmarshal(b, &r.Resource)
	}
	var m ProtectedResourceMetadata
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("decode auth/required resource: %w", err)
	}
	*r = AuthRequiredResource{ProtectedResourceMetadata: m}
	return nil
}

package client

import (
	"context"
	"encoding/base64"
	"fmt"

	"github.com/ahptui/ahptui/protocol"
)

// InvokeChangesetOperation runs one of a changeset's operations
// (invokeChangesetOperation). Its effect on the changeset arrives as
// changeset/* actions on p.Channel; the result holds the host's message
// and follow-up, if any.
func (c *Client) InvokeChangesetOperation(ctx context.Context, p protocol.InvokeChangesetOperationParams) (protocol.InvokeChangesetOperationResult, error) {
	var res protocol.InvokeChangesetOperationResult
	err := c.call(ctx, "invokeChangesetOperation", p, &res)
	return res, err
}

// ErrContentTooLarge is returned by ReadContent for content over its cap.
var ErrContentTooLarge = fmt.Errorf("content too large")

// ReadContent reads a ContentRef's text with resourceRead, refusing
// content whose size hint or decoded size is over maxBytes: a diff view
// asks for both sides of every file, and the host decides how large they
// are. The frame itself is bounded by the connection's frame cap.
func (c *Client) ReadContent(ctx context.Context, ref protocol.ContentRef, maxBytes int) (string, error) {
	if ref.SizeHint != nil && *ref.SizeHint > int64(maxBytes) {
		return "", fmt.Errorf("%w: %d bytes (the cap is %d)", ErrContentTooLarge, *ref.SizeHint, maxBytes)
	}
	enc := protocol.ContentEncodingUtf8
	var res protocol.ResourceReadResult
	if err := c.call(ctx, "resourceRead", protocol.ResourceReadParams{URI: string(ref.URI), Encoding: &enc}, &res); err != nil {
		return "", err
	}
	data := res.Data
	if res.Encoding == protocol.ContentEncodingBase64 {
		if base64.StdEncoding.DecodedLen(len(data)) > maxBytes+3 {
			return "", fmt.Errorf("%w: over %d bytes", ErrContentTooLarge, maxBytes)
		}
		b, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			return "", fmt.Errorf("resourceRead: undecodable base64: %w", err)
		}
		data = string(b)
	}
	if len(data) > maxBytes {
		return "", fmt.Errorf("%w: %d bytes (the cap is %d)", ErrContentTooLarge, len(data), maxBytes)
	}
	return data, nil
}

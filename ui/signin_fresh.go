package ui

// A flow is keyed by resource, since one token answers every challenge for
// it; but its outcome belongs to the challenges it was started for (and
// those that came while it ran). A challenge the host raises after a flow
// ended (a new tool call after a forget, or after one was declined) is a
// fresh prompt with its scope explanation, not the old flow's "✓ access
// granted" or "sign-in cancelled".

// challengeKey names one challenge: a transcript item's, an MCP server's,
// or an agent's sign-in prompt; one of its fields is set.
type challengeKey struct {
	item          itemKey
	server, agent string
}

func itemChallenge(it chatItem) challengeKey      { return challengeKey{item: it.key()} }
func serverChallenge(id string) challengeKey      { return challengeKey{server: id} }
func agentChallenge(resource string) challengeKey { return challengeKey{agent: resource} }

// noteChallenges records, on flow g, every challenge now asking for its
// resource: they are the ones its outcome answers.
func (si *signIn) noteChallenges(g *grantFlow) {
	if g == nil {
		return
	}
	if g.asks == nil {
		g.asks = map[challengeKey]bool{}
	}
	res := g.resource
	if si.hasChat {
		for _, it := range si.chatPanel.items() {
			if si.chatPanel.itemGrant(it) == res {
				g.asks[itemChallenge(it)] = true
			}
		}
	}
	for _, r := range si.servers() {
		if r.Auth != nil && r.Auth.Resource.Resource == res {
			g.asks[serverChallenge(r.ID)] = true
		}
	}
	for _, p := range si.prompts {
		if p.resource == res {
			g.asks[agentChallenge(res)] = true
		}
	}
}

// flowFor is the flow whose state the prompt of challenge shows: the
// resource's flow while it runs, or once ended if it answered challenge.
func (si *signIn) flowFor(resource string, challenge challengeKey) *grantFlow {
	g := si.grants[resource]
	if g == nil {
		return nil
	}
	switch g.phase {
	case grantStarting, grantWaiting, grantPushing:
		return g
	}
	if g.asks[challenge] {
		return g
	}
	return nil
}

// endFlow moves g to an ended phase, noting the challenges that phase
// answers.
func (si *signIn) endFlow(g *grantFlow, phase grantPhase, err error) {
	si.noteChallenges(g)
	g.phase, g.err = phase, err
}

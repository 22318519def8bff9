#!/usr/bin/env python3
"""Writes the API Gateway HTTP API (payload 2.0) sample events of the two HTTP functions.

Run from anywhere: python3 events/generate.py. The stream and schedule events are not made
here (stream events are captured from DynamoDB Local's real stream).
"""
import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent


def event(route, sub=None, body=None, query=None, admin=False, groups=None, email=None, **path_params):
    """One event of `route` ("METHOD /pattern/{param}"), its path filled in from `path_params`;
    `email`: the token proves that address (an ID token's `email` and `email_verified`)."""
    method, pattern = route.split(" ", 1)
    path = pattern.format(**path_params)
    e = {
        "version": "2.0",
        "routeKey": route,
        "rawPath": path,
        "rawQueryString": "&".join(f"{k}={v}" for k, v in (query or {}).items()),
        "headers": {
            "accept": "application/json",
            "content-type": "application/json",
            "host": "abc123.execute-api.us-east-1.amazonaws.com",
            "user-agent": "tetris-client/1.4.2",
        },
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "abc123",
            "domainName": "abc123.execute-api.us-east-1.amazonaws.com",
            "domainPrefix": "abc123",
            "http": {
                "method": method,
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "203.0.113.7",
                "userAgent": "tetris-client/1.4.2",
            },
            "requestId": "Fq0bTjX3IAMEVxQ=",
            "routeKey": route,
            "stage": "$default",
            "time": "21/Nov/2026:04:13:00 +0000",
            "timeEpoch": 1795234380000,
        },
        "isBase64Encoded": False,
    }
    if sub is not None:
        e["headers"]["authorization"] = "Bearer eyJhbGciOiJIUzI1NiJ9.sample.signature"
        e["requestContext"]["authorizer"] = {
            "jwt": {
                "claims": {
                    "sub": sub,
                    "cognito:groups": groups or ("[admin players]" if admin else "[players]"),
                    "iss": "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_EXAMPLE",
                    "aud": "example-client-id",
                    "exp": "1795237980",
                    "iat": "1795234380",
                },
                "scopes": None,
            }
        }
        if email is not None:
            claims = e["requestContext"]["authorizer"]["jwt"]["claims"]
            claims["email"] = email
            claims["email_verified"] = "true"
    if query:
        e["queryStringParameters"] = {k: v.replace("%40", "@") for k, v in query.items()}
    if path_params:
        e["pathParameters"] = path_params
    if body is not None:
        e["body"] = json.dumps(body)
    return e


SUBMIT = {
    "post-sessions.json": event(
        "POST /sessions", "p_alice",
        {"score": 9850, "gameId": "tetris", "leaderboardIds": ["season_3", "daily_2026-11-21", "weekly_2026-w47"],
         "durationSec": 285, "metadata": {"character": "mage", "level": 12, "replayId": "r-01JDAW6K"}}),
    "post-sessions-with-session-id.json": event(
        "POST /sessions", "p_alice",
        {"score": 8420, "gameId": "tetris", "leaderboardIds": ["season_3"], "sessionId": "01JDAW6K2Z8Q4T1V5X7Y9B3C5D"}),
    "post-board-scores.json": event(
        "POST /leaderboards/{boardId}/scores", "p_bob",
        {"score": 9850, "gameId": "tetris", "metadata": {"character": "rogue"}}, boardId="season_3"),
    "post-sessions-server.json": event(
        "POST /sessions", "game_server_1",
        {"score": 7300, "gameId": "tetris", "leaderboardIds": ["tournament_1"], "playerId": "p_alice"},
        groups="[server]"),
    "post-sessions-no-claims.json": event(
        "POST /sessions", None, {"score": 1, "gameId": "tetris", "leaderboardIds": ["season_3"]}),
}

API = {
    "post-leaderboards.json": event(
        "POST /leaderboards", "ops", admin=True,
        body={"leaderboardId": "season_3", "name": "Season 3", "order": "desc", "operator": "best",
              "maxScore": 9999999999, "startsAt": "2026-11-01T00:00:00Z", "endsAt": "2027-02-01T00:00:00Z",
              "recurrence": "season", "gameId": "tetris", "minScore": 0, "writers": "players"}),
    "get-leaderboard.json": event("GET /leaderboards/{boardId}", boardId="season_3"),
    "get-top-scores.json": event(
        "GET /leaderboards/{boardId}/scores", query={"limit": "10"}, boardId="season_3"),
    "get-friends.json": event(
        "GET /leaderboards/{boardId}/scores", query={"playerIds": "p_alice,p_bob,p_carol"}, boardId="season_3"),
    "get-player-rank.json": event(
        "GET /leaderboards/{boardId}/players/{playerId}", boardId="season_3", playerId="p_alice"),
    "get-around.json": event(
        "GET /leaderboards/{boardId}/players/{playerId}/around", query={"n": "5"},
        boardId="season_3", playerId="p_alice"),
    "delete-entry.json": event(
        "DELETE /leaderboards/{boardId}/players/{playerId}", "ops", admin=True, boardId="season_3", playerId="p_alice"),
    "put-players-me.json": event(
        "PUT /players/me", "p_alice", {"name": "alice42", "email": "alice@x.com"}, email="alice@x.com"),
    "get-players-me.json": event("GET /players/me", "p_alice"),
    "get-player.json": event("GET /players/{playerId}", playerId="p_alice"),
    "get-player-scores.json": event("GET /players/{playerId}/scores", playerId="p_alice"),
    "get-player-sessions.json": event(
        "GET /players/{playerId}/sessions", query={"limit": "20"}, playerId="p_alice"),
    "get-session.json": event(
        "GET /players/{playerId}/sessions/{sessionId}", playerId="p_alice", sessionId="01JDAW6K2Z8Q4T1V5X7Y9B3C5D"),
    "get-player-results.json": event("GET /players/{playerId}/results", playerId="p_alice"),
    "get-game-sessions.json": event("GET /games/{gameId}/sessions", query={"limit": "20"}, gameId="tetris"),
    "get-admin-player-by-email.json": event(
        "GET /admin/players", "ops", query={"email": "alice%40x.com"}, admin=True),
    "put-ban.json": event(
        "PUT /admin/players/{playerId}/ban", "ops", {"reason": "impossible scores"}, admin=True, playerId="p_alice"),
    "delete-ban.json": event("DELETE /admin/players/{playerId}/ban", "ops", admin=True, playerId="p_alice"),
    "delete-players-me.json": event("DELETE /players/me", "p_alice"),
    "get-players-me-export.json": event("GET /players/me/export", "p_alice"),
    "delete-admin-player.json": event("DELETE /admin/players/{playerId}", "ops", admin=True, playerId="p_alice"),
    "get-admin-audit.json": event("GET /admin/audit", "ops", query={"playerId": "p_alice"}, admin=True),
}

for folder, events in (("submit-score", SUBMIT), ("leaderboard-api", API)):
    out = HERE / folder
    out.mkdir(exist_ok=True)
    for name, e in events.items():
        (out / name).write_text(json.dumps(e, indent=2) + "\n")

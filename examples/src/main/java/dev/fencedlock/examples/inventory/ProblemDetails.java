package dev.fencedlock.examples.inventory;

import dev.fencedlock.FenceRefusedException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * An RFC 9457 problem-details body ({@code application/problem+json}) as the shipping service
 * answers a refused call: {@code type}, {@code title}, {@code status}, {@code detail} and, for a
 * fence refusal, {@code lockName}, {@code presentedToken}, {@code newerToken} (when known) and
 * {@code reason}. Tokens are JSON strings: they use all 63 bits, more than a JavaScript number holds
 * exactly. Immutable.
 */
record ProblemDetails(int status, String type, String title, String detail, Map<String, String> members) {
    static final String CONTENT_TYPE = "application/problem+json";
    private static final String TYPE_BASE = "https://fencedlock.dev/problems/";

    /** The problem for a refusal with {@code status}, its type named after the reason. */
    static ProblemDetails refusal(int status, String title, FenceRefusedException refusal) {
        Map<String, String> members = new LinkedHashMap<>();
        members.put("lockName", refusal.lockName());
        if (refusal.token() != FenceRefusedException.NO_TOKEN) {
            members.put("presentedToken", Long.toString(refusal.token()));
        }
        refusal.newerToken().ifPresent(newer -> members.put("newerToken", Long.toString(newer)));
        members.put("reason", refusal.reason().name());
        String kebab = refusal.reason().name().toLowerCase(Locale.ROOT).replace('_', '-');
        return new ProblemDetails(status, TYPE_BASE + kebab, title, refusal.getMessage(), members);
    }

    /** A problem of the service's own {@code kind} (a type under the same base), with no extra members. */
    static ProblemDetails of(int status, String kind, String title, String detail) {
        return new ProblemDetails(status, TYPE_BASE + kind, title, detail, Map.of());
    }

    String toJson() {
        StringBuilder json = new StringBuilder("{");
        member(json, "type", type);
        member(json, "title", title);
        json.append("\"status\":").append(status).append(',');
        member(json, "detail", detail);
        members.forEach((name, value) -> member(json, name, value));
        json.setLength(json.length() - 1);
        return json.append('}').toString();
    }

    private static void member(StringBuilder json, String name, String value) {
        string(json, name);
        json.append(':');
        string(json, value);
        json.append(',');
    }

    private static void string(StringBuilder json, String value) {
        json.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\n' -> json.append("\\n");
                case '\r' -> json.append("\\r");
                case '\t' -> json.append("\\t");
                default -> {
                    if (c < 0x20) {
                        json.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        json.append('"');
    }
}

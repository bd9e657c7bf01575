package dev.fencedlock.spi;

import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/** Keeps credentials out of messages and {@code toString()} output. */
final class Masking {
    private Masking() {}

    /**
     * Replaces the password of every URI in a comma-separated value with {@code ****}, also in text
     * that is not a valid URI (a password with an unencoded {@code /}, {@code @} or {@code #}):
     * everything between the scheme and the last {@code @} of an entry counts as credentials, and
     * only the user name before its first {@code :} is kept. When in doubt it masks too much, never
     * too little.
     */
    static String maskUriCredentials(String value) {
        if (value == null) {
            return null;
        }
        StringJoiner masked = new StringJoiner(",");
        for (String entry : value.split(",", -1)) {
            masked.add(maskUri(entry));
        }
        return masked.toString();
    }

    /** {@link #maskUriCredentials} for a single URI, which may contain commas. */
    static String maskUri(String uri) {
        int schemeEnd = uri.indexOf("://");
        int credentialsStart = schemeEnd < 0 ? 0 : schemeEnd + 3;
        int lastAt = uri.lastIndexOf('@');
        if (lastAt < credentialsStart) {
            return uri;
        }
        String credentials = uri.substring(credentialsStart, lastAt);
        int colon = credentials.indexOf(':');
        String user = colon < 0 ? "" : credentials.substring(0, colon);
        return uri.substring(0, credentialsStart) + user + ":****" + uri.substring(lastAt);
    }

    /**
     * {@code {key=value, ...}} with URI credentials masked, and the whole value masked for keys
     * whose name mentions a password or secret.
     */
    static String describe(Map<String, String> values) {
        StringJoiner text = new StringJoiner(", ", "{", "}");
        values.forEach((key, value) -> text.add(key + "=" + maskValue(key, value)));
        return text.toString();
    }

    private static String maskValue(String key, String value) {
        String name = key.toLowerCase(Locale.ROOT);
        if (name.contains("password") || name.contains("secret")) {
            return "****";
        }
        return maskUriCredentials(value);
    }
}

package dev.fencedlock.redlock;

import dev.fencedlock.spi.BackendSettings;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;

/**
 * One Redis master of a Redlock deployment, parsed from {@code redis://[user:password@]host:port[/db]}
 * or {@code rediss://...} (TLS). The port defaults to 6379 and the database to 0.
 *
 * <p>{@link #toString()} masks the password, so instances are safe to log and to put in messages.
 * Immutable and thread-safe.
 */
public final class RedisNodeAddress {
    private final String host;
    private final int port;
    private final String user;
    private final String password;
    private final int database;
    private final boolean tls;

    private RedisNodeAddress(String host, int port, String user, String password, int database, boolean tls) {
        this.host = host;
        this.port = port;
        this.user = user;
        this.password = password;
        this.database = database;
        this.tls = tls;
    }

    /**
     * Parses one node URI.
     *
     * @throws IllegalArgumentException naming {@code key} and the URI (password masked) when the URI
     *     is malformed: another scheme, no host, a port outside 1..65535, a database that is not a
     *     non-negative number, or query and fragment parts
     */
    public static RedisNodeAddress parse(String key, String uri) {
        if (uri == null || uri.isBlank()) {
            throw new IllegalArgumentException(key + " has an empty node URI");
        }
        String trimmed = uri.trim();
        String shown = mask(trimmed);
        URI parsed;
        try {
            parsed = new URI(trimmed);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(key + " has a malformed node URI '" + shown + "': " + e.getReason());
        }
        String scheme = parsed.getScheme();
        if (!"redis".equals(scheme) && !"rediss".equals(scheme)) {
            throw new IllegalArgumentException(key + " node URI '" + shown + "' must start with redis:// or rediss://");
        }
        if (parsed.getHost() == null || parsed.getHost().isEmpty()) {
            throw new IllegalArgumentException(key + " node URI '" + shown + "' has no host (expected host:port)");
        }
        int port = parsed.getPort() == -1 ? 6379 : parsed.getPort();
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(
                    key + " node URI '" + shown + "' has port " + port + " outside 1..65535");
        }
        if (parsed.getRawQuery() != null || parsed.getRawFragment() != null) {
            throw new IllegalArgumentException(key + " node URI '" + shown + "' must not have a query or fragment");
        }
        int database = parseDatabase(key, shown, parsed.getPath());
        String user = null;
        String password = null;
        String userInfo = parsed.getRawUserInfo();
        if (userInfo != null && !userInfo.isEmpty()) {
            int colon = userInfo.indexOf(':');
            if (colon < 0) {
                password = decode(userInfo);
            } else {
                String rawUser = userInfo.substring(0, colon);
                user = rawUser.isEmpty() ? null : decode(rawUser);
                password = decode(userInfo.substring(colon + 1));
            }
        }
        return new RedisNodeAddress(parsed.getHost(), port, user, password, database, "rediss".equals(scheme));
    }

    private static int parseDatabase(String key, String shown, String path) {
        if (path == null || path.isEmpty() || "/".equals(path)) {
            return 0;
        }
        String digits = path.substring(1);
        if (!digits.matches("\\d{1,5}")) {
            throw new IllegalArgumentException(
                    key + " node URI '" + shown + "' has database '" + digits + "'; expected a number like /0");
        }
        return Integer.parseInt(digits);
    }

    private static String decode(String raw) {
        return URLDecoder.decode(raw, StandardCharsets.UTF_8);
    }

    /**
     * Replaces the password of a Redis URI with {@code ****}, also in text that is not a valid URI
     * (a password with an unencoded {@code /}, {@code @} or {@code #}): everything between the
     * scheme and the last {@code @} counts as credentials, and only the user name before the first
     * {@code :} of it is kept. When in doubt it masks too much, never too little.
     */
    public static String mask(String uri) {
        return BackendSettings.maskUri(uri);
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    /** The ACL user, or empty for the default user. */
    public Optional<String> user() {
        return Optional.ofNullable(user);
    }

    /** The password, or empty when the node needs none. Never log it. */
    public Optional<String> password() {
        return Optional.ofNullable(password);
    }

    public int database() {
        return database;
    }

    /** Whether the connection uses TLS ({@code rediss://}). */
    public boolean tls() {
        return tls;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RedisNodeAddress that
                && port == that.port
                && database == that.database
                && tls == that.tls
                && host.equals(that.host)
                && Objects.equals(user, that.user)
                && Objects.equals(password, that.password);
    }

    @Override
    public int hashCode() {
        return Objects.hash(host, port, user, database, tls);
    }

    /** The URI with the password masked, e.g. {@code redis://app:****@10.0.0.5:6379/0}. */
    @Override
    public String toString() {
        String credentials = user == null && password == null
                ? ""
                : (user == null ? "" : user) + (password == null ? "" : ":****") + "@";
        String hostPart = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
        return (tls ? "rediss://" : "redis://") + credentials + hostPart + ":" + port + "/" + database;
    }
}

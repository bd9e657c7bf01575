package dev.fencedlock.spring.internal;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;

/**
 * Spring Boot's own Redis settings ({@code spring.data.redis.*}) as the redlock backend's keys, so
 * that an application whose Redis is already configured for Spring Data Redis needs no second copy
 * of the addresses. Read from the {@link Binder} by name; no class of Spring Data Redis is needed.
 *
 * <table>
 *   <caption>What is read</caption>
 *   <tr><th>Spring Boot</th><th>redlock</th></tr>
 *   <tr><td>{@code spring.data.redis.sentinel.master}</td><td>{@code fencedlock.redlock.sentinel.master}</td></tr>
 *   <tr><td>{@code spring.data.redis.sentinel.nodes}, with {@code spring.data.redis.sentinel.username}
 *       and {@code .password}</td><td>{@code fencedlock.redlock.sentinel.nodes}, as {@code
 *       redis://user:password@host:port} when the Sentinels have credentials</td></tr>
 *   <tr><td>{@code spring.data.redis.username}, {@code spring.data.redis.password}</td><td>{@code
 *       fencedlock.redlock.sentinel.master-user}/{@code -password} in Sentinel mode; the cluster seeds'
 *       credentials in cluster mode</td></tr>
 *   <tr><td>{@code spring.data.redis.cluster.nodes}</td><td>{@code fencedlock.redlock.cluster.nodes}</td></tr>
 *   <tr><td>{@code spring.data.redis.ssl.enabled}, or an {@code spring.data.redis.ssl.bundle}</td><td>{@code
 *       rediss://} for every address (the bundle's trust material is not applied: the JVM's default
 *       trust store is)</td></tr>
 * </table>
 *
 * <p>Rules, in order:
 *
 * <ol>
 *   <li>Only when {@code fencedlock.backend} or {@code fencedlock.fallback} is {@code redlock}.
 *   <li>Sentinel before cluster, as Spring Boot chooses: with {@code spring.data.redis.sentinel.*}
 *       set, {@code spring.data.redis.cluster.nodes} is not read.
 *   <li>Explicit keys win, whole: when any of {@code fencedlock.redlock.nodes}, {@code
 *       fencedlock.redlock.sentinel.*} or {@code fencedlock.redlock.cluster.nodes} is set, nothing
 *       is taken from {@code spring.data.redis.*} (no key is merged into a half-given mode); if
 *       Spring Boot's settings name something else, one INFO line says which keys are used.
 * </ol>
 *
 * <p>Stateless and thread-safe.
 */
final class SpringDataRedis {
    private static final Logger LOG = LoggerFactory.getLogger(SpringDataRedis.class);

    // the redlock backend's keys (redlock-provider's RedlockSettings, not a dependency of the starter)
    static final String NODES = "fencedlock.redlock.nodes";
    static final String CLUSTER_NODES = "fencedlock.redlock.cluster.nodes";
    static final String SENTINEL_PREFIX = "fencedlock.redlock.sentinel.";
    static final String SENTINEL_MASTER = SENTINEL_PREFIX + "master";
    static final String SENTINEL_NODES = SENTINEL_PREFIX + "nodes";
    static final String SENTINEL_MASTER_USER = SENTINEL_PREFIX + "master-user";
    static final String SENTINEL_MASTER_PASSWORD = SENTINEL_PREFIX + "master-password";

    private static final String BOOT = "spring.data.redis.";

    private SpringDataRedis() {}

    /**
     * The keys to configure fencedlock with.
     *
     * @param properties the {@code fencedlock.*} keys
     * @param takenFrom the Spring Boot settings some of them were taken from; empty when none were
     */
    record Resolved(Map<String, String> properties, Optional<String> takenFrom) {}

    /**
     * {@code fencedlock}, the application's {@code fencedlock.*} keys, with the redlock keys derived
     * from {@code spring.data.redis.*} added where the rules of this class allow. A malformed Spring
     * Boot address reaches the redlock backend's own validation, which names the {@code
     * fencedlock.redlock.*} key it landed in (the caller adds {@link Resolved#takenFrom}).
     *
     * @throws IllegalArgumentException naming both keys when only one of {@code
     *     spring.data.redis.sentinel.master} and {@code .nodes} is set and they would be used
     */
    static Resolved withBootRedis(Map<String, String> fencedlock, Binder binder) {
        Resolved unchanged = new Resolved(fencedlock, Optional.empty());
        if (!usesRedlock(fencedlock)) {
            return unchanged;
        }
        List<String> explicit = fencedlock.keySet().stream()
                .filter(SpringDataRedis::isModeKey)
                .sorted()
                .toList();
        Map<String, String> derived;
        try {
            derived = derive(binder);
        } catch (IllegalArgumentException halfGiven) {
            if (explicit.isEmpty()) {
                throw halfGiven;
            }
            LOG.info("fencedlock.redlock uses its own {}; {}", explicit, halfGiven.getMessage());
            return unchanged;
        }
        if (derived.isEmpty()) {
            return unchanged;
        }
        String source = derived.containsKey(CLUSTER_NODES)
                ? BOOT + "cluster.nodes"
                : BOOT + "sentinel.master and " + BOOT + "sentinel.nodes";
        if (explicit.isEmpty()) {
            LOG.info("fencedlock.redlock takes its Redis from {} ({})", source, describe(derived));
            Map<String, String> result = new LinkedHashMap<>(fencedlock);
            result.putAll(derived);
            return new Resolved(result, Optional.of(source));
        }
        boolean differ = derived.entrySet().stream()
                .anyMatch(entry -> !normalized(fencedlock.get(entry.getKey())).equals(normalized(entry.getValue())));
        if (differ) {
            LOG.info(
                    "fencedlock.redlock uses its own {}; {} name other Redis settings and are not used for locks"
                            + " (nothing is merged)",
                    explicit,
                    source);
        }
        return unchanged;
    }

    private static boolean usesRedlock(Map<String, String> fencedlock) {
        return isRedlock(fencedlock.get("fencedlock.backend")) || isRedlock(fencedlock.get("fencedlock.fallback"));
    }

    private static boolean isRedlock(String backend) {
        return backend != null && "redlock".equalsIgnoreCase(backend.trim());
    }

    private static boolean isModeKey(String key) {
        return key.equals(NODES) || key.equals(CLUSTER_NODES) || key.startsWith(SENTINEL_PREFIX);
    }

    /**
     * The redlock keys Spring Boot's settings amount to; empty when neither Sentinel nor cluster is
     * set.
     *
     * @throws IllegalArgumentException when only one of the Sentinel master and nodes is set
     */
    static Map<String, String> derive(Binder binder) {
        Optional<String> master = string(binder, "sentinel.master");
        List<String> sentinels = list(binder, "sentinel.nodes");
        List<String> clusterNodes = list(binder, "cluster.nodes");
        boolean tls = binder.bind(BOOT + "ssl.enabled", Boolean.class).orElse(false)
                || string(binder, "ssl.bundle").isPresent();
        Optional<String> user = string(binder, "username");
        Optional<String> password = string(binder, "password");
        Map<String, String> derived = new LinkedHashMap<>();
        if (master.isPresent() || !sentinels.isEmpty()) {
            if (master.isEmpty() || sentinels.isEmpty()) {
                throw new IllegalArgumentException(BOOT + (master.isEmpty() ? "sentinel.nodes" : "sentinel.master")
                        + " is set but " + BOOT + (master.isEmpty() ? "sentinel.master" : "sentinel.nodes")
                        + " is not; the redlock backend takes its Sentinel from both when no fencedlock.redlock"
                        + " address is set (set both, or fencedlock.redlock.sentinel.master and .nodes)");
            }
            derived.put(SENTINEL_MASTER, master.get());
            Optional<String> sentinelPassword = string(binder, "sentinel.password");
            Optional<String> sentinelUser =
                    sentinelPassword.isPresent() ? string(binder, "sentinel.username") : Optional.empty();
            derived.put(SENTINEL_NODES, addresses(sentinels, tls, sentinelUser, sentinelPassword));
            if (password.isPresent()) {
                user.ifPresent(name -> derived.put(SENTINEL_MASTER_USER, name));
                derived.put(SENTINEL_MASTER_PASSWORD, password.get());
            }
        } else if (!clusterNodes.isEmpty()) {
            derived.put(
                    CLUSTER_NODES,
                    addresses(clusterNodes, tls, password.isPresent() ? user : Optional.empty(), password));
        }
        return derived;
    }

    /**
     * {@code host:port} entries as the redlock keys take them: unchanged without credentials or TLS,
     * else as {@code redis://} or {@code rediss://} URIs carrying them.
     */
    private static String addresses(
            List<String> hostPorts, boolean tls, Optional<String> user, Optional<String> password) {
        if (!tls && password.isEmpty()) {
            return String.join(",", hostPorts);
        }
        String credentials = password.map(
                        secret -> user.map(SpringDataRedis::encode).orElse("") + ":" + encode(secret) + "@")
                .orElse("");
        return hostPorts.stream()
                .map(hostPort -> (tls ? "rediss://" : "redis://") + credentials + hostPort)
                .collect(Collectors.joining(","));
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static Optional<String> string(Binder binder, String name) {
        return binder.bind(BOOT + name, String.class)
                .map(String::trim)
                .map(Optional::of)
                .orElse(Optional.empty())
                .filter(value -> !value.isEmpty());
    }

    private static List<String> list(Binder binder, String name) {
        List<String> values = new ArrayList<>();
        for (String value :
                binder.bind(BOOT + name, Bindable.listOf(String.class)).orElseGet(List::of)) {
            if (!value.trim().isEmpty()) {
                values.add(value.trim());
            }
        }
        return values;
    }

    private static String normalized(String value) {
        return value == null ? "" : value.replaceAll("\\s*,\\s*", ",").trim();
    }

    /** The derived settings for a log line, without credentials. */
    private static String describe(Map<String, String> derived) {
        if (derived.containsKey(CLUSTER_NODES)) {
            return derived.get(CLUSTER_NODES).split(",").length + " seed nodes";
        }
        String sentinels = derived.getOrDefault(SENTINEL_NODES, "");
        return "master " + derived.getOrDefault(SENTINEL_MASTER, "(unset)") + ", "
                + (sentinels.isEmpty() ? 0 : sentinels.split(",").length) + " Sentinels"
                + (derived.containsKey(SENTINEL_MASTER_PASSWORD) ? ", with the data nodes' password" : "");
    }
}

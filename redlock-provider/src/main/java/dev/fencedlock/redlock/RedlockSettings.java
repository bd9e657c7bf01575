package dev.fencedlock.redlock;

import dev.fencedlock.spi.BackendSettings;
import dev.fencedlock.spi.DurationFormat;
import java.net.InetAddress;
import java.net.URLEncoder;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The settings of the {@code redlock} backend: typed, from {@link #builder()} for {@link
 * RedlockLocks#create(RedlockSettings)}, or read from the configuration keys with {@link #from}.
 * Set the keys like any key, e.g. {@code
 * LockConfig.builder().backend("redlock").set(RedlockSettings.NODES, List.of("redis://a:6379",
 * ...))}, or as {@code FENCEDLOCK_REDLOCK_NODES} in the environment. Both paths run the same
 * checks; each key below has its option on {@link Builder}.
 *
 * <table>
 *   <caption>Keys</caption>
 *   <tr><th>key</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>{@code fencedlock.redlock.nodes}</td><td>comma-separated {@code redis://} / {@code rediss://} URIs</td><td>required</td></tr>
 *   <tr><td>{@code fencedlock.redlock.node-timeout}</td><td>per-node connect and response timeout</td><td>50ms</td></tr>
 *   <tr><td>{@code fencedlock.redlock.drift-factor}</td><td>clock drift allowance as a fraction of the lease, in [0, 0.5); 2 ms are added</td><td>0.01</td></tr>
 *   <tr><td>{@code fencedlock.redlock.retry-delay}</td><td>mean randomised delay between attempts</td><td>200ms</td></tr>
 *   <tr><td>{@code fencedlock.redlock.restart-quarantine}</td><td>how long a restarted node is kept out of the quorum; set it to the longest lease any client uses (longer leases are then rejected). {@code 0s} turns the quarantine off (development, or deployments that rely on the fence alone: see {@link #restartQuarantine()})</td><td>follows the leases that can still be outstanding: the nodes' record of live leases, at least {@code fencedlock.lease-time}</td></tr>
 *   <tr><td>{@code fencedlock.redlock.key-prefix}</td><td>starts every key and channel the backend uses on the nodes ({@link RedlockKeys}); applications with different prefixes on one Redis share no lock and no quarantine record. Non-empty, at most 128 characters, no whitespace, control characters or braces</td><td>{@code fencedlock:}</td></tr>
 *   <tr><td>{@code fencedlock.redlock.sentinel.master}</td><td>the master name the Sentinels monitor; the lock service is the one master they name, followed across failovers ({@link Sentinel}). Set with {@code sentinel.nodes}, never with {@code fencedlock.redlock.nodes}</td><td>unset</td></tr>
 *   <tr><td>{@code fencedlock.redlock.sentinel.nodes}</td><td>comma-separated Sentinels, {@code host:port} or {@code redis://[user:password@]host:port} / {@code rediss://...} when the Sentinels need credentials or TLS</td><td>unset</td></tr>
 *   <tr><td>{@code fencedlock.redlock.cluster.nodes}</td><td>comma-separated seed nodes {@code host:port} (or {@code redis://} / {@code rediss://} URIs with credentials or TLS) of one Redis Cluster; each lock lives on the shard of its hash slot, followed across {@code MOVED} and {@code ASK} redirections and failovers; the restart quarantine is off ({@link #clusterNodes()}). Never with {@code fencedlock.redlock.nodes} or the Sentinel keys</td><td>unset</td></tr>
 *   <tr><td>{@code fencedlock.redlock.sentinel.master-user}, {@code fencedlock.redlock.sentinel.master-password}</td><td>credentials of the data nodes (master and replicas); they use TLS when the Sentinels do</td><td>none</td></tr>
 *   <tr><td>{@code fencedlock.redlock.wait-replicas}</td><td>replicas of each master that must acknowledge a grant ({@code WAIT} after the acquire script); a grant acknowledged by fewer within {@code wait-replicas-timeout} is released and counts as a failed node. {@code 0}: no acknowledgement</td><td>0</td></tr>
 *   <tr><td>{@code fencedlock.redlock.wait-replicas-timeout}</td><td>how long {@code WAIT} may block on the server; shorter than {@code node-timeout}, within which the reply must arrive</td><td>half of {@code node-timeout}</td></tr>
 *   <tr><td>{@code fencedlock.redlock.persistent-nodes}</td><td>{@code true}: a node that says it fsyncs every write to its append-only file ({@code aof_enabled:1}, {@code aof_last_write_status:ok}, {@code loading:0} in {@code INFO persistence}, {@code appendfsync always} from {@code CONFIG GET}) needs no restart quarantine; every other node keeps it</td><td>false</td></tr>
 * </table>
 *
 * <p>Immutable and thread-safe.
 */
public final class RedlockSettings {
    public static final String NODES = "fencedlock.redlock.nodes";
    public static final String NODE_TIMEOUT = "fencedlock.redlock.node-timeout";
    public static final String DRIFT_FACTOR = "fencedlock.redlock.drift-factor";
    public static final String RETRY_DELAY = "fencedlock.redlock.retry-delay";
    /**
     * How long a restarted node stays out of the quorum: unset (the default) follows the leases that
     * can still be outstanding, at least {@code fencedlock.lease-time}; a positive duration is that
     * fixed time and the longest lease allowed; {@code 0s} turns the quarantine off. See {@link
     * #restartQuarantine()}.
     */
    public static final String RESTART_QUARANTINE = "fencedlock.redlock.restart-quarantine";

    public static final String PERSISTENT_NODES = "fencedlock.redlock.persistent-nodes";
    /**
     * Starts every key and channel the backend uses on the nodes ({@link RedlockKeys}). Default
     * {@value RedlockKeys#DEFAULT_PREFIX}. Non-empty, at most {@value RedlockKeys#MAX_PREFIX_LENGTH}
     * characters, no whitespace, control characters or braces; else an {@link
     * IllegalArgumentException} naming this key and the value.
     */
    public static final String KEY_PREFIX = "fencedlock.redlock.key-prefix";

    /**
     * The name of the master the Sentinels of {@link #SENTINEL_NODES} monitor. Set together with
     * {@link #SENTINEL_NODES}, and not with {@link #NODES}: one mode at a time.
     */
    public static final String SENTINEL_MASTER = "fencedlock.redlock.sentinel.master";
    /** Comma-separated Sentinels: {@code host:port}, or a {@code redis://} / {@code rediss://} URI. */
    public static final String SENTINEL_NODES = "fencedlock.redlock.sentinel.nodes";
    /**
     * Comma-separated seed nodes ({@code host:port}) of one Redis Cluster: the lock service is the
     * whole cluster, each lock on the shard that owns its hash slot. One mode at a time: never with
     * {@value #NODES} or the Sentinel keys.
     */
    public static final String CLUSTER_NODES = "fencedlock.redlock.cluster.nodes";
    /** The user of the data nodes the Sentinels name (ACL); default none. */
    public static final String SENTINEL_MASTER_USER = "fencedlock.redlock.sentinel.master-user";
    /** The password of the data nodes the Sentinels name; default none. */
    public static final String SENTINEL_MASTER_PASSWORD = "fencedlock.redlock.sentinel.master-password";

    /**
     * How many replicas of each master must acknowledge a grant ({@code WAIT numreplicas timeout}
     * after the acquire script): a grant fewer acknowledge within {@link #WAIT_REPLICAS_TIMEOUT} is
     * released and counts as a failed node. Default 0 (no acknowledgement); a non-negative integer.
     */
    public static final String WAIT_REPLICAS = "fencedlock.redlock.wait-replicas";
    /**
     * How long {@code WAIT} may block on the server. Default half of {@link #NODE_TIMEOUT}; must be
     * shorter than it (checked when a client is created), since the reply must arrive within it.
     */
    public static final String WAIT_REPLICAS_TIMEOUT = "fencedlock.redlock.wait-replicas-timeout";

    /** Every key of the backend. */
    public static final Set<String> KEYS = Set.of(
            NODES,
            CLUSTER_NODES,
            NODE_TIMEOUT,
            DRIFT_FACTOR,
            RETRY_DELAY,
            RESTART_QUARANTINE,
            PERSISTENT_NODES,
            KEY_PREFIX,
            SENTINEL_MASTER,
            SENTINEL_NODES,
            SENTINEL_MASTER_USER,
            SENTINEL_MASTER_PASSWORD,
            WAIT_REPLICAS,
            WAIT_REPLICAS_TIMEOUT);

    /**
     * One master watched by Redis Sentinel: the lock service is whichever server the Sentinels name
     * as {@code master} now. The Redlock algorithm sees it as one node (a quorum of one), and a
     * failover as that node answering from a new incarnation (see docs/which-redis.md for what a
     * failover can lose and how the fence and the restart quarantine answer it).
     *
     * @param master the master name the Sentinels monitor
     * @param sentinels the Sentinels, asked in this order; each with its own credentials and TLS
     * @param masterUser the data nodes' user, null for none
     * @param masterPassword the data nodes' password, null for none
     */
    public record Sentinel(String master, List<RedisNodeAddress> sentinels, String masterUser, String masterPassword) {
        public Sentinel {
            sentinels = List.copyOf(sentinels);
        }

        /**
         * The data node at {@code host:port} as a Sentinel named it, with the data nodes'
         * credentials, and TLS when the first Sentinel uses it.
         */
        public RedisNodeAddress dataNode(String host, int port) {
            StringBuilder uri = new StringBuilder(sentinels.get(0).tls() ? "rediss://" : "redis://");
            if (masterPassword != null) {
                if (masterUser != null) {
                    uri.append(URLEncoder.encode(masterUser, StandardCharsets.UTF_8));
                }
                uri.append(':')
                        .append(URLEncoder.encode(masterPassword, StandardCharsets.UTF_8)
                                .replace("+", "%20"));
                uri.append('@');
            }
            uri.append(host.contains(":") ? "[" + host + "]" : host).append(':').append(port);
            return RedisNodeAddress.parse(SENTINEL_MASTER, uri.toString());
        }

        @Override
        public String toString() {
            return "Sentinel{master=" + master + ", sentinels=" + BackendSettings.maskCredentials(sentinels.toString())
                    + ", masterUser=" + masterUser + ", masterPassword=" + (masterPassword == null ? "none" : "****")
                    + "}";
        }
    }

    static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofMillis(50);
    static final double DEFAULT_DRIFT_FACTOR = 0.01;
    static final Duration DEFAULT_RETRY_DELAY = Duration.ofMillis(200);

    private final List<RedisNodeAddress> nodes;
    private final Duration nodeTimeout;
    private final double driftFactor;
    private final Duration retryDelay;
    private final Duration restartQuarantine;
    private final boolean persistentNodes;
    private final RedlockKeys keys;
    private final Sentinel sentinel;
    private final List<RedisNodeAddress> clusterNodes;
    private final int waitReplicas;
    private final Duration waitReplicasTimeout;

    private RedlockSettings(Builder builder) {
        this.nodes = builder.nodes;
        this.nodeTimeout = builder.nodeTimeout;
        this.driftFactor = builder.driftFactor;
        this.retryDelay = builder.retryDelay;
        this.restartQuarantine = builder.restartQuarantine;
        this.persistentNodes = builder.persistentNodes;
        this.keys = builder.keys;
        this.sentinel = builder.sentinelMaster == null || builder.sentinelNodes.isEmpty()
                ? null
                : new Sentinel(
                        builder.sentinelMaster,
                        builder.sentinelNodes,
                        builder.sentinelMasterUser,
                        builder.sentinelMasterPassword);
        this.clusterNodes = builder.clusterNodes;
        this.waitReplicas = builder.waitReplicas;
        this.waitReplicasTimeout =
                builder.waitReplicasTimeout != null ? builder.waitReplicasTimeout : nodeTimeout.dividedBy(2);
    }

    /** An empty builder: every option at its default, no node set. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder holding the values of the keys that were set, each read and checked by the setter
     * of its option.
     *
     * @throws IllegalArgumentException naming the key and the value (passwords masked) for a value
     *     that cannot be used
     */
    public static Builder builder(BackendSettings settings) {
        Builder builder = builder();
        builder.nodes(settings.list(NODES));
        settings.positiveDuration(NODE_TIMEOUT).ifPresent(builder::nodeTimeout);
        settings.get(DRIFT_FACTOR).map(RedlockSettings::parseDriftFactor).ifPresent(builder::driftFactor);
        settings.positiveDuration(RETRY_DELAY).ifPresent(builder::retryDelay);
        settings.get(RESTART_QUARANTINE)
                .map(value -> DurationFormat.parse(RESTART_QUARANTINE, value))
                .ifPresent(builder::restartQuarantine);
        settings.get(PERSISTENT_NODES).map(RedlockSettings::parseBoolean).ifPresent(builder::persistentNodes);
        settings.get(KEY_PREFIX).ifPresent(builder::keyPrefix);
        settings.get(SENTINEL_MASTER).ifPresent(builder::sentinelMaster);
        builder.sentinelNodes(settings.list(SENTINEL_NODES));
        settings.get(SENTINEL_MASTER_USER).ifPresent(builder::sentinelMasterUser);
        settings.get(SENTINEL_MASTER_PASSWORD).ifPresent(builder::sentinelMasterPassword);
        builder.clusterNodes(settings.list(CLUSTER_NODES));
        settings.get(WAIT_REPLICAS).map(RedlockSettings::parseReplicas).ifPresent(builder::waitReplicas);
        settings.positiveDuration(WAIT_REPLICAS_TIMEOUT).ifPresent(builder::waitReplicasTimeout);
        return builder;
    }

    /**
     * Reads and checks the values that were set, as a configuration is checked key by key while it
     * is built: absent keys take their defaults, no node list gives an empty {@link #nodes()}, and
     * what only a whole configuration can tell (a mode chosen, the Sentinel keys as a pair) is left
     * to {@link Builder#build()}, which runs when a client is created.
     *
     * @throws IllegalArgumentException naming the key and the value (passwords masked) for a
     *     malformed node URI, a node listed twice, a duration that is not positive (the restart
     *     quarantine may be zero), a drift factor outside [0, 0.5), a key prefix that {@link
     *     RedlockKeys#withPrefix} refuses, a malformed Sentinel address, or the keys of two modes
     *     together (one mode at a time)
     */
    public static RedlockSettings from(BackendSettings settings) {
        Builder builder = builder(settings);
        builder.requireOneModeAtMost();
        return new RedlockSettings(builder);
    }

    private static int parseReplicas(String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    WAIT_REPLICAS + " has '" + value + "'; expected a number of replicas, 0 or more");
        }
    }

    private static boolean parseBoolean(String value) {
        return switch (value.trim()) {
            case "true" -> true;
            case "false" -> false;
            default ->
                throw new IllegalArgumentException(PERSISTENT_NODES + " has '" + value + "'; expected true or false");
        };
    }

    private static double parseDriftFactor(String value) {
        try {
            return Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    DRIFT_FACTOR + " has '" + value + "', which is not a number; expected e.g. 0.01");
        }
    }

    /**
     * Entries of {@code key} as {@code host:port} or {@code redis://} / {@code rediss://} URIs, in
     * order. Rejects a database other than 0 (with {@code noDatabase} as the reason) and an entry
     * listed twice.
     */
    private static List<RedisNodeAddress> parseHostPorts(String key, List<String> entries, String noDatabase) {
        List<RedisNodeAddress> parsed = new ArrayList<>();
        for (String entry : entries) {
            String trimmed = entry == null ? "" : entry.trim();
            RedisNodeAddress node =
                    RedisNodeAddress.parse(key, trimmed.contains("://") ? trimmed : "redis://" + trimmed);
            if (node.database() != 0) {
                throw new IllegalArgumentException(key + " entry '" + node + "' names a database; " + noDatabase);
            }
            requireNotListed(key, parsed, node, "");
            parsed.add(node);
        }
        return List.copyOf(parsed);
    }

    private static List<RedisNodeAddress> parseNodes(List<String> uris) {
        List<RedisNodeAddress> parsed = new ArrayList<>();
        for (String uri : uris) {
            RedisNodeAddress node = RedisNodeAddress.parse(NODES, uri);
            requireNotListed(NODES, parsed, node, "; Redlock needs independent masters");
            parsed.add(node);
        }
        return List.copyOf(parsed);
    }

    private static void requireNotListed(String key, List<RedisNodeAddress> listed, RedisNodeAddress node, String why) {
        if (listed.stream().anyMatch(n -> n.host().equalsIgnoreCase(node.host()) && n.port() == node.port())) {
            throw new IllegalArgumentException(key + " lists " + node.host() + ":" + node.port() + " twice" + why);
        }
    }

    /**
     * Checks that no two nodes are one server under two names ({@code localhost} and {@code
     * 127.0.0.1}, a host name and its address): such a list would count one server's vote twice and
     * make a quorum of fewer independent masters than it claims. Looks the host names up in DNS; a
     * name that does not resolve is left to fail as an unreachable node.
     *
     * @throws IllegalArgumentException naming both entries if two resolve to a shared address and
     *     the same port
     */
    public void requireIndependentNodes() {
        Map<String, RedisNodeAddress> seen = new HashMap<>();
        for (RedisNodeAddress node : nodes) {
            for (InetAddress address : resolve(node.host())) {
                RedisNodeAddress earlier = seen.putIfAbsent(address.getHostAddress() + "#" + node.port(), node);
                if (earlier != null && earlier != node) {
                    throw new IllegalArgumentException(NODES + " lists " + earlier + " and " + node
                            + ", which are the same server (" + address.getHostAddress() + ":" + node.port()
                            + "); Redlock needs independent masters");
                }
            }
        }
    }

    private static List<InetAddress> resolve(String host) {
        try {
            return List.of(InetAddress.getAllByName(host));
        } catch (UnknownHostException e) {
            return List.of();
        }
    }

    /**
     * The master found through Sentinel; empty unless {@value #SENTINEL_MASTER} and {@value
     * #SENTINEL_NODES} were set (then {@link #nodes()} is empty).
     */
    public Optional<Sentinel> sentinel() {
        return Optional.ofNullable(sentinel);
    }

    /** Replicas that must acknowledge each grant ({@value #WAIT_REPLICAS}); 0, the default, for none. */
    public int waitReplicas() {
        return waitReplicas;
    }

    /** How long {@code WAIT} may block on the server. Default half the node timeout. */
    public Duration waitReplicasTimeout() {
        return waitReplicasTimeout;
    }

    /**
     * The seed nodes of one Redis Cluster ({@value #CLUSTER_NODES}); empty unless set (then {@link
     * #nodes()} is empty and {@link #sentinel()} too). The seeds are only asked for the slot map;
     * the locks live on the masters it names.
     *
     * <p>In cluster mode the restart quarantine is off. Its record of live leases is one sorted set
     * per node, which a script that also writes a lock key of another slot cannot touch in a
     * cluster; and the event it guards against, a master that comes back without the grants it
     * made, is what a failover inside the cluster does anyway (a replica is promoted from
     * asynchronous replication). A lost grant lets a second holder in while the first still
     * believes it holds; the fencing token of the second is larger (the counter moves with its
     * slot, and a counter lost with a master is covered by the token's time floor), so the fence
     * refuses the older holder's writes. Effects that are not fenced may overlap in that case.
     */
    public List<RedisNodeAddress> clusterNodes() {
        return clusterNodes;
    }

    /** The Redis masters; empty when {@code fencedlock.redlock.nodes} was not set. */
    public List<RedisNodeAddress> nodes() {
        return nodes;
    }

    /** Per-node connect and response timeout. Default 50ms. */
    public Duration nodeTimeout() {
        return nodeTimeout;
    }

    /** Clock drift allowance as a fraction of the lease; 2 ms are added. Default 0.01. */
    public double driftFactor() {
        return driftFactor;
    }

    /** Mean delay between acquisition attempts, randomised. Default 200ms. */
    public Duration retryDelay() {
        return retryDelay;
    }

    /**
     * How long a restarted node stays out of the quorum ({@value #RESTART_QUARANTINE}). Empty (the
     * default) means: as long as a lease it may have granted can still be valid, judged from the
     * nodes' record of live leases and at least {@code fencedlock.lease-time}. A positive value is
     * that fixed time, and no lease may be longer. Zero turns the quarantine off: a restarted node
     * votes as soon as it answers, so after a restart without persistence a second client may be
     * granted a lock whose earlier lease is still valid (the fence refuses the older holder's
     * writes; unfenced effects may overlap). For development, and for deployments that accept that.
     */
    public Optional<Duration> restartQuarantine() {
        return Optional.ofNullable(restartQuarantine);
    }

    /** Whether nodes that fsync every write skip the restart quarantine ({@value #PERSISTENT_NODES}). */
    public boolean trustPersistentNodes() {
        return persistentNodes;
    }

    /** The names of the backend's keys on the nodes, under {@value #KEY_PREFIX}. Default {@code fencedlock:}. */
    public RedlockKeys keys() {
        return keys;
    }

    @Override
    public String toString() {
        return "RedlockSettings{nodes=" + BackendSettings.maskCredentials(nodes.toString()) + ", nodeTimeout="
                + nodeTimeout + ", driftFactor=" + driftFactor + ", retryDelay=" + retryDelay
                + ", restartQuarantine=" + restartQuarantine + ", persistentNodes=" + persistentNodes + ", keyPrefix="
                + keys.prefix() + (sentinel == null ? "" : ", sentinel=" + sentinel)
                + (clusterNodes.isEmpty()
                        ? ""
                        : ", clusterNodes=" + BackendSettings.maskCredentials(clusterNodes.toString()))
                + ", waitReplicas=" + waitReplicas
                + ", waitReplicasTimeout=" + waitReplicasTimeout + "}";
    }

    /**
     * Builds {@link RedlockSettings}: one of {@link #nodes}, the Sentinel options ({@link
     * #sentinelMaster} with {@link #sentinelNodes}) or {@link #clusterNodes}, and the options that
     * tune it. Each setter checks its value at once and throws {@link IllegalArgumentException}
     * naming the key and the value (passwords masked); {@link #build()} checks how the options go
     * together. Not thread-safe.
     */
    public static final class Builder {
        private List<RedisNodeAddress> nodes = List.of();
        private Duration nodeTimeout = DEFAULT_NODE_TIMEOUT;
        private double driftFactor = DEFAULT_DRIFT_FACTOR;
        private Duration retryDelay = DEFAULT_RETRY_DELAY;
        private Duration restartQuarantine;
        private boolean persistentNodes;
        private RedlockKeys keys = RedlockKeys.defaults();
        private String sentinelMaster;
        private List<RedisNodeAddress> sentinelNodes = List.of();
        private String sentinelMasterUser;
        private String sentinelMasterPassword;
        private List<RedisNodeAddress> clusterNodes = List.of();
        private int waitReplicas;
        private Duration waitReplicasTimeout;

        private Builder() {}

        /**
         * {@value #NODES}: independent Redis masters, {@code redis://[user:password@]host:port[/db]}
         * or {@code rediss://...} (TLS, verified against the JVM's trust store and the host name).
         * Default none. No server may be listed twice.
         */
        public Builder nodes(List<String> uris) {
            this.nodes = parseNodes(requireList(NODES, uris));
            return this;
        }

        /** As {@link #nodes(List)}. */
        public Builder nodes(String... uris) {
            return nodes(Arrays.asList(uris));
        }

        /**
         * {@value #SENTINEL_MASTER}: the master name the Sentinels of {@link #sentinelNodes} monitor.
         * Default unset. Not blank.
         */
        public Builder sentinelMaster(String master) {
            String trimmed = master == null ? "" : master.trim();
            if (trimmed.isEmpty()) {
                throw new IllegalArgumentException(
                        SENTINEL_MASTER + " is empty: name the master the Sentinels monitor, got '" + master + "'");
            }
            this.sentinelMaster = trimmed;
            return this;
        }

        /**
         * {@value #SENTINEL_NODES}: the Sentinels, {@code host:port} or a {@code redis://} / {@code
         * rediss://} URI when they need credentials or TLS; asked in this order. Default none.
         */
        public Builder sentinelNodes(List<String> sentinels) {
            this.sentinelNodes =
                    parseHostPorts(SENTINEL_NODES, requireList(SENTINEL_NODES, sentinels), "Sentinels have none");
            return this;
        }

        /** As {@link #sentinelNodes(List)}. */
        public Builder sentinelNodes(String... sentinels) {
            return sentinelNodes(Arrays.asList(sentinels));
        }

        /** {@value #SENTINEL_MASTER_USER}: the data nodes' ACL user. Default none; needs a password. */
        public Builder sentinelMasterUser(String user) {
            if (user == null || user.isBlank()) {
                throw new IllegalArgumentException(SENTINEL_MASTER_USER + " must not be blank, got '" + user + "'");
            }
            this.sentinelMasterUser = user.trim();
            return this;
        }

        /** {@value #SENTINEL_MASTER_PASSWORD}: the data nodes' password. Default none. Never printed. */
        public Builder sentinelMasterPassword(String password) {
            if (password == null) {
                throw new IllegalArgumentException(SENTINEL_MASTER_PASSWORD + " must not be null");
            }
            this.sentinelMasterPassword = password;
            return this;
        }

        /**
         * {@value #CLUSTER_NODES}: seed nodes of one Redis Cluster, {@code host:port} or {@code
         * redis://} / {@code rediss://} URIs without a database. Default none. The restart
         * quarantine is off in this mode ({@link RedlockSettings#clusterNodes()} says why).
         */
        public Builder clusterNodes(List<String> seeds) {
            this.clusterNodes = parseHostPorts(
                    CLUSTER_NODES, requireList(CLUSTER_NODES, seeds), "a Redis Cluster has only database 0");
            return this;
        }

        /** As {@link #clusterNodes(List)}. */
        public Builder clusterNodes(String... seeds) {
            return clusterNodes(Arrays.asList(seeds));
        }

        /** {@value #NODE_TIMEOUT}: per-node connect and response timeout. Default 50ms; positive. */
        public Builder nodeTimeout(Duration nodeTimeout) {
            this.nodeTimeout = DurationFormat.requirePositive(NODE_TIMEOUT, nodeTimeout);
            return this;
        }

        /**
         * {@value #DRIFT_FACTOR}: clock drift allowance as a fraction of the lease, 2 ms added.
         * Default 0.01; in [0, 0.5).
         */
        public Builder driftFactor(double driftFactor) {
            if (!(driftFactor >= 0.0 && driftFactor < 0.5)) {
                throw new IllegalArgumentException(DRIFT_FACTOR + " must be in [0, 0.5), got " + driftFactor);
            }
            this.driftFactor = driftFactor;
            return this;
        }

        /** {@value #RETRY_DELAY}: mean randomised delay between attempts. Default 200ms; positive. */
        public Builder retryDelay(Duration retryDelay) {
            this.retryDelay = DurationFormat.requirePositive(RETRY_DELAY, retryDelay);
            return this;
        }

        /**
         * {@value #RESTART_QUARANTINE}: how long a restarted node stays out of the quorum. Default
         * unset: it follows the leases that can still be outstanding ({@link
         * RedlockSettings#restartQuarantine()}). Positive: that fixed time, and no lease may be
         * longer; {@link Duration#ZERO} turns the quarantine off. Not negative.
         */
        public Builder restartQuarantine(Duration restartQuarantine) {
            if (restartQuarantine == null || restartQuarantine.isNegative()) {
                throw new IllegalArgumentException(RESTART_QUARANTINE + " must be 0s (off) or positive, got "
                        + (restartQuarantine == null ? "null" : DurationFormat.format(restartQuarantine)));
            }
            this.restartQuarantine = restartQuarantine.isZero()
                    ? Duration.ZERO
                    : DurationFormat.requirePositive(RESTART_QUARANTINE, restartQuarantine);
            return this;
        }

        /**
         * {@value #PERSISTENT_NODES}: whether a node that says it fsyncs every write skips the
         * restart quarantine. Default false.
         */
        public Builder persistentNodes(boolean persistentNodes) {
            this.persistentNodes = persistentNodes;
            return this;
        }

        /**
         * {@value #KEY_PREFIX}: starts every key and channel the backend uses on the nodes. Default
         * {@value RedlockKeys#DEFAULT_PREFIX}; rules in {@link RedlockKeys#withPrefix}.
         */
        public Builder keyPrefix(String prefix) {
            this.keys = RedlockKeys.withPrefix(prefix);
            return this;
        }

        /**
         * {@value #WAIT_REPLICAS}: replicas of each master that must acknowledge a grant. Default 0
         * (no acknowledgement); not negative.
         */
        public Builder waitReplicas(int replicas) {
            if (replicas < 0) {
                throw new IllegalArgumentException(
                        WAIT_REPLICAS + " has '" + replicas + "'; expected a number of replicas, 0 or more");
            }
            this.waitReplicas = replicas;
            return this;
        }

        /**
         * {@value #WAIT_REPLICAS_TIMEOUT}: how long {@code WAIT} may block on the server. Default
         * half the node timeout; positive, and shorter than the node timeout (checked by {@link
         * #build()}).
         */
        public Builder waitReplicasTimeout(Duration timeout) {
            this.waitReplicasTimeout = DurationFormat.requirePositive(WAIT_REPLICAS_TIMEOUT, timeout);
            return this;
        }

        /**
         * @throws IllegalArgumentException if no mode or more than one was chosen, a Sentinel option
         *     lacks its partner, a Redis Cluster is given a positive restart quarantine, or the
         *     replica acknowledgement would not time out within the node timeout; the message names
         *     the keys involved
         */
        public RedlockSettings build() {
            requireOneModeAtMost();
            requireComplete();
            return new RedlockSettings(this);
        }

        /** The checks a configuration passes key by key: no two modes at once. */
        void requireOneModeAtMost() {
            if (!clusterNodes.isEmpty()) {
                for (String other : List.of(NODES, SENTINEL_MASTER, SENTINEL_NODES)) {
                    if (isSet(other)) {
                        throw new IllegalArgumentException(CLUSTER_NODES + " and " + other
                                + " are both set: use one mode at a time, a Redis Cluster (" + CLUSTER_NODES
                                + "), independent redis:// masters (" + NODES
                                + ") or one master found through Sentinel (" + SENTINEL_MASTER + " and "
                                + SENTINEL_NODES + ")");
                    }
                }
                if (restartQuarantine != null && !restartQuarantine.isZero()) {
                    throw new IllegalArgumentException(RESTART_QUARANTINE + " is '"
                            + DurationFormat.format(restartQuarantine) + "' but " + CLUSTER_NODES
                            + " is set: a Redis Cluster runs without the restart quarantine (a lost grant is"
                            + " refused by the fence); leave " + RESTART_QUARANTINE + " unset or 0s");
                }
            }
            if (!nodes.isEmpty() && (sentinelMaster != null || !sentinelNodes.isEmpty())) {
                throw new IllegalArgumentException(NODES + " and "
                        + (sentinelMaster != null ? SENTINEL_MASTER : SENTINEL_NODES)
                        + " are both set: use one mode at a time, either independent redis:// masters (" + NODES
                        + ") or one master found through Sentinel (" + SENTINEL_MASTER + " and " + SENTINEL_NODES
                        + ")");
            }
        }

        /** What only the whole configuration can tell, checked when a client is created. */
        private void requireComplete() {
            if (sentinelMaster != null && sentinelNodes.isEmpty()) {
                throw new IllegalArgumentException(SENTINEL_MASTER + " is set to '" + sentinelMaster + "' but "
                        + SENTINEL_NODES + " is not: list the Sentinels as host:port,host:port");
            }
            if (sentinelMaster == null && !sentinelNodes.isEmpty()) {
                throw new IllegalArgumentException(SENTINEL_NODES + " is set to '"
                        + BackendSettings.maskCredentials(sentinelNodes.toString()) + "' but " + SENTINEL_MASTER
                        + " is not: name the master the Sentinels monitor");
            }
            Duration ackTimeout = waitReplicasTimeout != null ? waitReplicasTimeout : nodeTimeout.dividedBy(2);
            if (waitReplicas > 0 && ackTimeout.compareTo(nodeTimeout) >= 0) {
                throw new IllegalArgumentException(WAIT_REPLICAS_TIMEOUT + " " + DurationFormat.format(ackTimeout)
                        + " must be shorter than " + NODE_TIMEOUT + " " + DurationFormat.format(nodeTimeout)
                        + ": the reply to WAIT must arrive within the node timeout");
            }
            boolean credentials = sentinelMasterUser != null || sentinelMasterPassword != null;
            if (credentials && sentinelMaster == null) {
                throw new IllegalArgumentException(
                        (sentinelMasterUser != null ? SENTINEL_MASTER_USER : SENTINEL_MASTER_PASSWORD)
                                + " is set but " + SENTINEL_MASTER
                                + " is not; the data nodes' credentials are for Sentinel mode"
                                + " (redis:// nodes carry theirs in the URI)");
            }
            if (sentinelMasterUser != null && sentinelMasterPassword == null) {
                throw new IllegalArgumentException(SENTINEL_MASTER_USER + " is set to '" + sentinelMasterUser + "' but "
                        + SENTINEL_MASTER_PASSWORD + " is not");
            }
            if (nodes.isEmpty() && sentinelMaster == null && clusterNodes.isEmpty()) {
                throw new IllegalArgumentException(NODES
                        + " is required for the redlock backend: comma-separated redis:// or rediss:// URIs (or "
                        + SENTINEL_MASTER + " and " + SENTINEL_NODES + " for one master found through Sentinel, or "
                        + CLUSTER_NODES + " for a Redis Cluster)");
            }
        }

        private boolean isSet(String key) {
            return switch (key) {
                case NODES -> !nodes.isEmpty();
                case SENTINEL_MASTER -> sentinelMaster != null;
                case SENTINEL_NODES -> !sentinelNodes.isEmpty();
                default -> throw new IllegalStateException(key);
            };
        }

        private static List<String> requireList(String key, List<String> values) {
            if (values == null) {
                throw new IllegalArgumentException(key + " must not be null");
            }
            return values;
        }
    }
}

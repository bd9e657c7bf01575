package dev.fencedlock.examples.inventory;

import dev.fencedlock.LockConfig;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What one run of the inventory example does, read from command-line flags. Lock configuration
 * that is not given as a flag comes from the usual fencedlock sources (system properties,
 * {@code FENCEDLOCK_*} environment variables, {@code fencedlock.properties}); with none at all the
 * run uses the embedded default, an in-process ZooKeeper.
 */
record RunSettings(
        Optional<String> backend,
        Optional<String> redisNodes,
        Optional<RedisSentinel> redisSentinel,
        Optional<String> redisCluster,
        Optional<String> zookeeperConnect,
        Optional<String> jdbcUrl,
        String dbUser,
        String dbPassword,
        int workers,
        int skus,
        int stockPerSku,
        Duration lease,
        Duration stall,
        int stallWorker,
        OptionalInt breakWorker,
        int processes,
        boolean workerProcess,
        int workerOffset,
        Optional<URI> shippingUrl,
        boolean help) {

    static final String USAGE = """
            Usage: java -jar fencedlock-examples.jar [options]

            Lock backend (default: embedded in-process ZooKeeper; fencedlock.* system properties,
            FENCEDLOCK_* environment variables and fencedlock.properties are also read):
              --backend NAME          redlock, zookeeper, jdbc (the lock table in the run's own
                                      database, beside the inventory) or local
              --redis URIS            comma-separated redis:// URIs (implies --backend redlock)
              --redis-sentinel MASTER@HOST:PORT,HOST:PORT
                                      the master the Sentinels at HOST:PORT,... monitor under
                                      MASTER, followed across failovers (implies --backend
                                      redlock; not with --redis)
              --redis-cluster HOST:PORT[,HOST:PORT...]
                                      seed nodes of one Redis Cluster; each lock on the shard of
                                      its hash slot (implies --backend redlock; not with --redis
                                      or --redis-sentinel)
              --zookeeper CONNECT     ZooKeeper connect string (implies --backend zookeeper)
            Database (default: embedded H2):
              --jdbc-url URL          e.g. jdbc:postgresql://127.0.0.1:5432/test; the tables go to
                                      the URL's currentSchema= if it names one, else to
                                      fencedlock_inventory
              --db-user USER          default: none
              --db-password PASSWORD  default: none
            Run:
              --workers N             concurrent workers placing orders (default 8)
              --skus N                hot SKUs (default 3)
              --stock N               initial stock per SKU (default 100)
              --lease DURATION        fixed lease per order, e.g. 2s (default 2s)
              --stall DURATION        how long the stalled worker pauses inside its first
                                      transaction (default: twice the lease; 0s for none)
              --stall-worker N        which worker stalls (default 0)
              --break-lock-worker N   which worker has its lock deleted on the backend in the
                                      middle of its first transaction, while its lease still looks
                                      valid, so that only the database's fence can refuse its
                                      write (default 1; none to switch off; redlock and zookeeper)
              --processes N           run the workers in N separate JVMs sharing one database
                                      (default 1: threads in this JVM)
              --help
            """;

    static RunSettings parse(String[] args) {
        Map<String, String> flags = new LinkedHashMap<>();
        List<String> booleans = List.of("--help", "--worker-process");
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            if (!flag.startsWith("--")) {
                throw new IllegalArgumentException("Unexpected argument '" + flag + "'; options start with --");
            }
            if (booleans.contains(flag)) {
                flags.put(flag, "true");
                continue;
            }
            if (!KNOWN.contains(flag)) {
                throw new IllegalArgumentException("Unknown option '" + flag + "'; see --help");
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("Option " + flag + " needs a value");
            }
            flags.put(flag, args[++i]);
        }
        Duration lease = Optional.ofNullable(flags.get("--lease"))
                .map(v -> positive("--lease", LockConfig.parseDuration("--lease", v)))
                .orElse(Duration.ofSeconds(2));
        Duration stall = Optional.ofNullable(flags.get("--stall"))
                .map(v -> "0".equals(v.trim()) ? Duration.ZERO : LockConfig.parseDuration("--stall", v))
                .orElse(lease.multipliedBy(2));
        int workers = positiveInt(flags, "--workers", 8);
        int stallWorker = nonNegativeInt(flags, "--stall-worker", 0);
        if (stallWorker >= workers) {
            throw new IllegalArgumentException("--stall-worker " + stallWorker + " must name one of the " + workers
                    + " workers (0.." + (workers - 1) + ")");
        }
        OptionalInt breakWorker = breakWorker(flags.get("--break-lock-worker"), workers, stall, stallWorker);
        int processes = positiveInt(flags, "--processes", 1);
        if (processes > workers) {
            throw new IllegalArgumentException(
                    "--processes " + processes + " exceeds --workers " + workers + "; each process needs a worker");
        }
        Optional<RedisSentinel> redisSentinel =
                Optional.ofNullable(flags.get("--redis-sentinel")).map(RedisSentinel::parse);
        Optional<String> redisCluster =
                Optional.ofNullable(flags.get("--redis-cluster")).map(RunSettings::clusterSeeds);
        List<String> redisModes =
                REDIS_MODES.stream().filter(flags::containsKey).toList();
        if (redisModes.size() > 1) {
            throw new IllegalArgumentException(redisModes.get(0) + " '" + flags.get(redisModes.get(0)) + "' and "
                    + redisModes.get(1) + " '" + flags.get(redisModes.get(1))
                    + "' are two ways to reach Redis; give one");
        }
        return new RunSettings(
                Optional.ofNullable(flags.get("--backend")),
                Optional.ofNullable(flags.get("--redis")),
                redisSentinel,
                redisCluster,
                Optional.ofNullable(flags.get("--zookeeper")),
                Optional.ofNullable(flags.get("--jdbc-url")),
                flags.getOrDefault("--db-user", ""),
                flags.getOrDefault("--db-password", ""),
                workers,
                positiveInt(flags, "--skus", 3),
                positiveInt(flags, "--stock", 100),
                lease,
                stall,
                stallWorker,
                breakWorker,
                processes,
                flags.containsKey("--worker-process"),
                nonNegativeInt(flags, "--worker-offset", 0),
                Optional.ofNullable(flags.get("--shipping-url")).map(RunSettings::shippingUrl),
                flags.containsKey("--help"));
    }

    private static final List<String> KNOWN = List.of(
            "--backend",
            "--redis",
            "--redis-sentinel",
            "--redis-cluster",
            "--zookeeper",
            "--jdbc-url",
            "--db-user",
            "--db-password",
            "--workers",
            "--skus",
            "--stock",
            "--lease",
            "--stall",
            "--stall-worker",
            "--break-lock-worker",
            "--processes",
            "--worker-offset",
            "--shipping-url");

    /** The flags that each name a way to reach Redis, of which a run takes one. */
    private static final List<String> REDIS_MODES = List.of("--redis", "--redis-sentinel", "--redis-cluster");

    /**
     * The value of {@code --redis-cluster} with blanks around the entries removed, as {@code
     * fencedlock.redlock.cluster.nodes} takes it: every entry {@code HOST:PORT} with a port in
     * 1..65535, else an {@link IllegalArgumentException} naming the flag and the value.
     */
    static String clusterSeeds(String value) {
        List<String> seeds = new ArrayList<>();
        for (String entry : value.split(",", -1)) {
            String seed = entry.trim();
            int colon = seed.lastIndexOf(':');
            if (colon <= 0 || !validPort(seed.substring(colon + 1))) {
                throw new IllegalArgumentException(
                        "--redis-cluster needs HOST:PORT[,HOST:PORT...], got '" + value + "'");
            }
            seeds.add(seed);
        }
        return String.join(",", seeds);
    }

    private static boolean validPort(String text) {
        if (text.isEmpty() || text.length() > 5 || !text.chars().allMatch(Character::isDigit)) {
            return false;
        }
        int port = Integer.parseInt(text);
        return port >= 1 && port <= 65_535;
    }

    /**
     * The value of {@code --redis-sentinel}: the master name and the Sentinels, as the {@code
     * fencedlock.redlock.sentinel.master} and {@code fencedlock.redlock.sentinel.nodes} settings take
     * them.
     */
    record RedisSentinel(String master, String sentinels) {
        static RedisSentinel parse(String value) {
            int at = value.indexOf('@');
            String master = at < 0 ? "" : value.substring(0, at).trim();
            String sentinels = at < 0 ? "" : value.substring(at + 1).trim();
            if (master.isEmpty() || sentinels.isEmpty()) {
                throw new IllegalArgumentException(
                        "--redis-sentinel needs MASTER@HOST:PORT[,HOST:PORT...], got '" + value + "'");
            }
            return new RedisSentinel(master, sentinels);
        }

        /** The flag's value again, as a worker process is given it. */
        String flagValue() {
            return master + "@" + sentinels;
        }
    }

    private static OptionalInt breakWorker(String value, int workers, Duration stall, int stallWorker) {
        if (value == null) {
            int fallback = stallWorker == 1 ? 0 : 1;
            return workers >= 2 ? OptionalInt.of(fallback) : OptionalInt.empty();
        }
        if ("none".equals(value.trim())) {
            return OptionalInt.empty();
        }
        int index = nonNegativeInt(Map.of("--break-lock-worker", value), "--break-lock-worker", 0);
        if (index >= workers) {
            throw new IllegalArgumentException("--break-lock-worker " + index + " must name one of the " + workers
                    + " workers (0.." + (workers - 1) + ")");
        }
        if (!stall.isZero() && index == stallWorker) {
            throw new IllegalArgumentException(
                    "--break-lock-worker " + index + " is also the stalled worker; pick another worker");
        }
        return OptionalInt.of(index);
    }

    /** A worker process's {@code --shipping-url}: the coordinator's shipping service. */
    private static URI shippingUrl(String value) {
        try {
            URI uri = new URI(value);
            if (!"http".equals(uri.getScheme()) || uri.getHost() == null) {
                throw new URISyntaxException(value, "not an http:// URL with a host");
            }
            return uri;
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("--shipping-url needs an http:// URL, got '" + value + "'");
        }
    }

    private static Duration positive(String flag, Duration value) {
        if (value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException(flag + " must be positive, got " + value);
        }
        return value;
    }

    private static int positiveInt(Map<String, String> flags, String flag, int fallback) {
        int value = nonNegativeInt(flags, flag, fallback);
        if (value == 0) {
            throw new IllegalArgumentException(flag + " must be at least 1, got 0");
        }
        return value;
    }

    private static int nonNegativeInt(Map<String, String> flags, String flag, int fallback) {
        String text = flags.get(flag);
        if (text == null) {
            return fallback;
        }
        try {
            int value = Integer.parseInt(text.trim());
            if (value < 0) {
                throw new IllegalArgumentException(flag + " must not be negative, got " + value);
            }
            return value;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + " needs a whole number, got '" + text + "'");
        }
    }

    /** Whether the worker with this index (within this process) is the one that stalls. */
    boolean stalls(int workerIndex) {
        return !stall.isZero() && workerIndex == stallWorker;
    }

    /** Whether the worker with this index (within this process) has its lock broken. */
    boolean breaksLock(int workerIndex) {
        return breakWorker.isPresent() && breakWorker.getAsInt() == workerIndex;
    }

    /**
     * The command-line flags a worker process needs to repeat this run's settings, calling the
     * shipping service at {@code shipping}.
     */
    List<String> workerProcessArgs(String jdbcUrlForWorkers, URI shipping, int offset, int workersInProcess) {
        List<String> args = new ArrayList<>(List.of(
                "--worker-process",
                "--shipping-url",
                shipping.toString(),
                "--jdbc-url",
                jdbcUrlForWorkers,
                "--db-user",
                dbUser,
                "--db-password",
                dbPassword,
                "--workers",
                String.valueOf(workersInProcess),
                "--skus",
                String.valueOf(skus),
                "--stock",
                String.valueOf(stockPerSku),
                "--lease",
                lease.toMillis() + "ms",
                "--worker-offset",
                String.valueOf(offset)));
        int localStallWorker = stallWorker - offset;
        boolean stallsHere = !stall.isZero() && localStallWorker >= 0 && localStallWorker < workersInProcess;
        args.addAll(List.of("--stall", stallsHere ? stall.toMillis() + "ms" : "0"));
        if (stallsHere) {
            args.addAll(List.of("--stall-worker", String.valueOf(localStallWorker)));
        }
        int localBreakWorker = breakWorker.orElse(-1) - offset;
        boolean breaksHere = breakWorker.isPresent() && localBreakWorker >= 0 && localBreakWorker < workersInProcess;
        args.addAll(List.of("--break-lock-worker", breaksHere ? String.valueOf(localBreakWorker) : "none"));
        return args;
    }
}

package dev.fencedlock.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.faults.jdbc.Migrations;
import dev.fencedlock.jdbcprovider.JdbcLockSettings;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.junit.RedisServersExtension;
import dev.fencedlock.testkit.net.TcpProxy;
import dev.fencedlock.testkit.zookeeper.ZooKeeperServers;
import dev.fencedlock.zookeeper.ZooKeeperSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The wait contract, cell by cell: every backend (redlock with one and three nodes, zookeeper, jdbc
 * on PostgreSQL and MariaDB, and a redlock primary with a zookeeper fallback) under every fault
 * that can make a server slow to answer (silent: connections open, no byte moves; refused:
 * connections closed as they open; replies delayed past the per-attempt timeout; for jdbc also
 * the lock row locked by another transaction), for a single attempt ({@code tryAcquire(ZERO)}) and
 * a short wait ({@code acquire(500ms)}).
 *
 * <p>Each cell gets a fresh client on its library defaults (only addresses and a lease time are
 * set), proven healthy by one grant before the fault is injected, and asserts that the call
 * returned or threw within {@code wait + per-attempt timeout + slack}: the per-attempt timeout is
 * the backend's documented default, the slack is what a loaded two-core machine adds to one
 * thread's timer. A locked jdbc row is "taken": {@code tryAcquire(ZERO)} returns empty. The
 * measured table is written to {@code target/wait-bound-matrix.md} (docs/guarantees.md shows it).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class WaitBoundMatrixIT {
    private static final Logger log = LoggerFactory.getLogger(WaitBoundMatrixIT.class);

    /** What a loaded two-core machine may add to a timer on top of the documented bound. */
    private static final Duration SLACK = Duration.ofMillis(1000);

    private static final Duration LEASE = Duration.ofSeconds(5);

    /** Far past every backend's per-attempt timeout: a reply that late never counts. */
    private static final Duration REPLY_DELAY = Duration.ofSeconds(4);

    /** Documented defaults of the per-attempt timeouts (docs/guarantees.md, "The wait contract"). */
    private static final Duration REDLOCK_NODE_TIMEOUT = Duration.ofMillis(50);

    private static final Duration ZOOKEEPER_OPERATION_TIMEOUT = Duration.ofSeconds(1);
    private static final Duration JDBC_OPERATION_TIMEOUT = Duration.ofSeconds(2);

    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(3);

    private static TestingServer zooKeeper;
    private static final Map<String, String> measured = new TreeMap<>();

    enum Backend {
        REDLOCK_1("redlock N=1", REDLOCK_NODE_TIMEOUT),
        REDLOCK_3("redlock N=3", REDLOCK_NODE_TIMEOUT),
        ZOOKEEPER("zookeeper", ZOOKEEPER_OPERATION_TIMEOUT),
        JDBC_POSTGRESQL("jdbc PostgreSQL", JDBC_OPERATION_TIMEOUT),
        JDBC_MARIADB("jdbc MariaDB", JDBC_OPERATION_TIMEOUT),
        FALLBACK("redlock N=3 -> zookeeper fallback", REDLOCK_NODE_TIMEOUT.plus(ZOOKEEPER_OPERATION_TIMEOUT));

        final String label;
        final Duration perAttempt;

        Backend(String label, Duration perAttempt) {
            this.label = label;
            this.perAttempt = perAttempt;
        }

        boolean jdbc() {
            return this == JDBC_POSTGRESQL || this == JDBC_MARIADB;
        }
    }

    enum Fault {
        SILENT("silent"),
        REFUSED("refused"),
        DELAYED("replies delayed 4 s"),
        ROW_LOCKED("lock row locked");

        final String label;

        Fault(String label) {
            this.label = label;
        }
    }

    enum Call {
        TRY_ZERO("tryAcquire(ZERO)", Duration.ZERO),
        ACQUIRE_500MS("acquire(500ms)", Duration.ofMillis(500));

        final String label;
        final Duration wait;

        Call(String label, Duration wait) {
            this.label = label;
            this.wait = wait;
        }
    }

    @BeforeAll
    static void start() throws Exception {
        zooKeeper = ZooKeeperServers.start();
        redis.servers().awaitUptime(LEASE);
    }

    @AfterAll
    static void writeTable() throws Exception {
        if (zooKeeper != null) {
            zooKeeper.close();
        }
        StringBuilder table = new StringBuilder("| backend | fault | call | measured | bound | outcome |\n");
        table.append("|---|---|---|---:|---:|---|\n");
        measured.values().forEach(row -> table.append(row).append('\n'));
        log.info("Wait-bound matrix:\n{}", table);
        Path out = Path.of("target", "wait-bound-matrix.md");
        try {
            Files.createDirectories(out.getParent());
            Files.writeString(out, table);
        } catch (IOException e) {
            log.warn("cannot write {}", out, e);
        }
    }

    static Stream<Arguments> cells() {
        List<Arguments> cells = new ArrayList<>();
        for (Backend backend : Backend.values()) {
            Set<Fault> faults = EnumSet.of(Fault.SILENT, Fault.REFUSED, Fault.DELAYED);
            if (backend.jdbc()) {
                faults.add(Fault.ROW_LOCKED);
            }
            for (Fault fault : faults) {
                for (Call call : Call.values()) {
                    cells.add(Arguments.of(backend, fault, call));
                }
            }
        }
        return cells.stream();
    }

    @ParameterizedTest(name = "{0} / {1} / {2}")
    @MethodSource("cells")
    void everyCallReturnsOrThrowsWithinItsWaitPlusOnePerAttemptTimeout(Backend backend, Fault fault, Call call)
            throws Exception {
        String name = "faults:wait-bound:" + UUID.randomUUID();
        try (Subject subject = Subject.of(backend)) {
            try (Lease warmUp = subject.client().lock(name).acquire(Duration.ofSeconds(10))) {
                assertThat(warmUp.isValid())
                        .as("a healthy grant before the fault")
                        .isTrue();
            }
            subject.inject(fault);
            long start = System.nanoTime();
            String outcome;
            try {
                Optional<Lease> lease = call == Call.TRY_ZERO
                        ? subject.client().lock(name).tryAcquire(Duration.ZERO)
                        : Optional.of(subject.client().lock(name).acquire(call.wait));
                outcome = lease.map(l -> "granted by " + l.backend()).orElse("empty");
                lease.ifPresent(Lease::close);
            } catch (RuntimeException e) {
                outcome = e.getClass().getSimpleName();
            }
            Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
            subject.heal();

            Duration bound = call.wait.plus(backend.perAttempt);
            measured.put(
                    String.format(Locale.ROOT, "%02d-%02d-%02d", backend.ordinal(), fault.ordinal(), call.ordinal()),
                    String.format(
                            Locale.ROOT,
                            "| %s | %s | %s | %d ms | %d ms | %s |",
                            backend.label,
                            fault.label,
                            call.label,
                            elapsed.toMillis(),
                            bound.toMillis(),
                            outcome));
            log.info("{} / {} / {}: {} ms, {}", backend.label, fault.label, call.label, elapsed.toMillis(), outcome);

            assertThat(elapsed)
                    .as(
                            "%s, %s, %s: returned or threw (%s) within wait %s + per-attempt %s + slack %s",
                            backend.label, fault.label, call.label, outcome, call.wait, backend.perAttempt, SLACK)
                    .isLessThanOrEqualTo(bound.plus(SLACK));
            if (fault == Fault.ROW_LOCKED) {
                assertThat(outcome)
                        .as("a lock row another transaction holds locked counts as taken")
                        .isEqualTo(call == Call.TRY_ZERO ? "empty" : "LockTimeoutException");
            } else {
                assertThat(outcome)
                        .as("no grant from a primary that cannot answer")
                        .doesNotStartWith("granted by redlock");
            }
        }
    }

    /** One backend's client, the proxies between it and its servers, and how to break and heal them. */
    private interface Subject extends AutoCloseable {
        LockClient client();

        void inject(Fault fault) throws SQLException;

        void heal() throws SQLException;

        @Override
        void close() throws Exception;

        static Subject of(Backend backend) throws Exception {
            return switch (backend) {
                case REDLOCK_1 -> new Proxied(redisClient(1, false));
                case REDLOCK_3 -> new Proxied(redisClient(3, false));
                case FALLBACK -> new Proxied(redisClient(3, true));
                case ZOOKEEPER -> zooKeeperClient();
                case JDBC_POSTGRESQL -> JdbcSubject.start(TestDatabase.Kind.POSTGRESQL);
                case JDBC_MARIADB -> JdbcSubject.start(TestDatabase.Kind.MARIADB);
            };
        }
    }

    /** A client whose faulted servers are all behind {@code faulted}; {@code cleanup} closes the rest. */
    private record ProxiedClient(LockClient client, List<TcpProxy> faulted, List<AutoCloseable> cleanup) {}

    private static ProxiedClient redisClient(int nodes, boolean withFallback) {
        List<TcpProxy> proxies = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            proxies.add(TcpProxy.start(
                    redis.servers().get(i).host(), redis.servers().get(i).port()));
        }
        LockConfig.Builder config = LockConfig.builder()
                .backend("redlock")
                .set(RedlockSettings.NODES, RedisSetup.uris(proxies))
                .set(RedlockSettings.RESTART_QUARANTINE, LEASE)
                .leaseTime(LEASE);
        if (withFallback) {
            config.fallback("zookeeper").set(ZooKeeperSettings.CONNECT, zooKeeper.getConnectString());
        }
        LockClient client = LockClient.create(config.build());
        // A majority of the nodes fails; with three, the third still answers at once.
        List<TcpProxy> faulted = proxies.subList(0, nodes / 2 + 1);
        return new ProxiedClient(client, faulted, new ArrayList<>(proxies));
    }

    private static Subject zooKeeperClient() {
        TcpProxy proxy = TcpProxy.start("127.0.0.1", zooKeeper.getPort());
        LockClient client = LockClient.create(LockConfig.builder()
                .backend("zookeeper")
                .set(ZooKeeperSettings.CONNECT, "127.0.0.1:" + proxy.port())
                .set(ZooKeeperSettings.SESSION_TIMEOUT, Duration.ofSeconds(20))
                .leaseTime(LEASE)
                .build());
        return new Proxied(new ProxiedClient(client, List.of(proxy), List.of(proxy)));
    }

    /** A backend reached only through proxies; row locks do not apply. */
    private record Proxied(ProxiedClient proxied) implements Subject {
        @Override
        public LockClient client() {
            return proxied.client();
        }

        @Override
        public void inject(Fault fault) {
            for (TcpProxy proxy : proxied.faulted()) {
                switch (fault) {
                    case SILENT -> proxy.blackhole();
                    case REFUSED -> proxy.reset();
                    case DELAYED -> proxy.delayReplies(REPLY_DELAY);
                    case ROW_LOCKED -> throw new IllegalArgumentException("no lock row on " + proxied.client());
                }
            }
        }

        @Override
        public void heal() {
            proxied.faulted().forEach(TcpProxy::pass);
        }

        @Override
        public void close() throws Exception {
            proxied.client().close();
            for (AutoCloseable closeable : proxied.cleanup()) {
                closeable.close();
            }
        }
    }

    /** The jdbc backend on a private schema, through a proxy; a second connection can lock its rows. */
    private static final class JdbcSubject implements Subject {
        private final TestDatabase database;
        private final TcpProxy proxy;
        private final LockClient client;
        private Connection blocker;

        private JdbcSubject(TestDatabase database, TcpProxy proxy, LockClient client) {
            this.database = database;
            this.proxy = proxy;
            this.client = client;
        }

        static JdbcSubject start(TestDatabase.Kind kind) {
            TestDatabase database = Migrations.database(kind);
            TcpProxy proxy = database.proxy();
            String url = database.jdbcUrlThrough(proxy);
            LockConfig.Builder config = LockConfig.builder()
                    .backend("jdbc")
                    .leaseTime(LEASE)
                    .set(JdbcLockSettings.URL, url)
                    .set(JdbcLockSettings.USER, database.user());
            if (!database.password().isEmpty()) {
                config.set(JdbcLockSettings.PASSWORD, database.password());
            }
            return new JdbcSubject(database, proxy, LockClient.create(config.build()));
        }

        @Override
        public LockClient client() {
            return client;
        }

        @Override
        public void inject(Fault fault) throws SQLException {
            switch (fault) {
                case SILENT -> proxy.blackhole();
                case REFUSED -> proxy.reset();
                case DELAYED -> proxy.delayReplies(REPLY_DELAY);
                case ROW_LOCKED -> {
                    blocker = database.dataSource().getConnection();
                    blocker.setAutoCommit(false);
                    try (Statement lockRows = blocker.createStatement()) {
                        lockRows.executeQuery("SELECT * FROM " + JdbcLockSettings.DEFAULT_TABLE + " FOR UPDATE")
                                .close();
                    }
                }
            }
        }

        @Override
        public void heal() throws SQLException {
            proxy.pass();
            if (blocker != null) {
                blocker.rollback();
                blocker.close();
                blocker = null;
            }
        }

        @Override
        public void close() throws Exception {
            heal();
            client.close();
            proxy.close();
            database.close();
        }
    }
}

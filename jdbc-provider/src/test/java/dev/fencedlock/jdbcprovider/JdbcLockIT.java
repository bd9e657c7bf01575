package dev.fencedlock.jdbcprovider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockException;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.spi.TokenOrder;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.net.TcpProxy;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** What the jdbc backend promises beyond the shared contract, on each database. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JdbcLockIT {
    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeResources() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private TestDatabase database(TestDatabase.Kind kind) {
        TestDatabase database = TestDatabase.create(kind, "jdbclock", 8).migrate(JdbcLockSettings.MIGRATION_LOCATION);
        resources.add(database);
        return database;
    }

    private LockClient client(DataSource dataSource, Duration pollInterval) {
        LockClient client = JdbcLocks.create(
                LockConfig.builder().backend(JdbcLocks.BACKEND).build(),
                JdbcLockSettings.builder()
                        .dataSource(dataSource)
                        .pollInterval(pollInterval)
                        .build());
        resources.add(client);
        return client;
    }

    /** The database's clock in ms, as the backend reads it. */
    private static long databaseNow(TestDatabase database) {
        return database.queryLong(
                switch (database.kind()) {
                    case H2 -> "SELECT CAST(FLOOR(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000) AS BIGINT)";
                    case POSTGRESQL -> "SELECT CAST(FLOOR(EXTRACT(EPOCH FROM statement_timestamp()) * 1000) AS BIGINT)";
                    case MARIADB ->
                        "SELECT TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000";
                });
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void namesThatTheDatabaseWouldCompareEqualAreSeparateLocks(TestDatabase.Kind kind) throws Exception {
        TestDatabase database = database(kind);
        LockClient client = client(database.dataSource(), Duration.ofMillis(50));
        List<String> names = List.of("Sku-42", "sku-42", "Sku-42 ", "Skú-42", "SKU-42");
        List<Lease> held = new ArrayList<>();
        for (String name : names) {
            Optional<Lease> lease = client.lock(name).tryAcquire(Duration.ZERO);
            assertThat(lease)
                    .as("'%s' is free although the others are held", name)
                    .isPresent();
            held.add(lease.get());
        }
        assertThat(database.queryLong("SELECT COUNT(*) FROM fencedlock_lock")).isEqualTo(names.size());
        if (kind == TestDatabase.Kind.MARIADB) {
            // the hazard the hashed key avoids: MariaDB's default collation folds case, accents and padding
            assertThat(database.queryLong("SELECT COUNT(*) FROM fencedlock_lock WHERE lock_name = ?", "sku-42"))
                    .as("rows whose lock_name MariaDB finds equal to 'sku-42'")
                    .isEqualTo(names.size());
        }
        for (Lease lease : held) {
            lease.close();
        }
    }

    @Test
    void aLeaseTooLongToMeasureIsRejectedNamingIt() throws Exception {
        LockClient client = client(database(TestDatabase.Kind.H2).dataSource(), Duration.ofMillis(50));
        assertThatThrownBy(() -> client.lock("forever").acquire(Duration.ZERO, Duration.ofDays(365L * 1000)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseTime")
                .hasMessageContaining("PT8760000H");
        assertThat(client.lock("forever").tryAcquire(Duration.ZERO))
                .as("nothing was granted")
                .isPresent();
    }

    /** Nothing listens on port 1 of the loopback: every connection is refused at once. */
    private static LockConfig.Builder unreachable() {
        return LockConfig.builder()
                .backend(JdbcLocks.BACKEND)
                .set(JdbcLockSettings.URL, "jdbc:postgresql://127.0.0.1:1/app?password=hunter2")
                .set(JdbcLockSettings.USER, "app")
                .set(JdbcLockSettings.PASSWORD, "hunter2");
    }

    @Test
    void anUnreachableDatabaseIsUnavailableNamingItWithoutItsPassword() throws Exception {
        try (LockClient client = LockClient.create(unreachable().build())) {
            assertThatThrownBy(() -> client.lock("down").acquire(Duration.ofMillis(300)))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("down")
                    .hasMessageContaining("jdbc:postgresql://127.0.0.1:1/app")
                    .hasMessageNotContaining("hunter2");
            assertThatThrownBy(() -> client.lock("down").tryAcquire(Duration.ZERO))
                    .isInstanceOf(LockUnavailableException.class);
        }
    }

    /**
     * The router asks the primary once without waiting; an unreachable database answers at once.
     * With {@code immediate} the fallback grants at once (by default it first waits out the
     * leases the database may have granted: {@code FallbackIT}).
     */
    @Test
    void anUnreachableDatabaseHandsTheAcquisitionToTheFallback() throws Exception {
        try (LockClient client = LockClient.create(unreachable()
                .fallback("local")
                .fallbackTakeover(LockConfig.FallbackTakeover.IMMEDIATE)
                .build())) {
            try (Lease lease = client.lock("fallback:" + System.nanoTime()).acquire(Duration.ofSeconds(10))) {
                assertThat(lease.backend()).isEqualTo("local");
            }
        }
    }

    /** {@code fencedlock.backend=jdbc} and the keys alone, as from properties or the environment. */
    @Test
    void aClientConfiguredByKeysAloneLocks() throws Exception {
        TestDatabase database = database(TestDatabase.Kind.POSTGRESQL);
        java.util.Properties properties = new java.util.Properties();
        properties.setProperty(LockConfig.BACKEND, "jdbc");
        properties.setProperty(JdbcLockSettings.URL, database.jdbcUrl());
        properties.setProperty(JdbcLockSettings.USER, database.user());
        properties.setProperty(JdbcLockSettings.POLL_INTERVAL, "20ms");
        try (LockClient first = LockClient.create(LockConfig.fromProperties(properties));
                LockClient second = LockClient.create(LockConfig.fromProperties(properties))) {
            try (Lease lease = first.lock("by-keys").acquire(Duration.ofSeconds(5))) {
                assertThat(second.lock("by-keys").tryAcquire(Duration.ZERO)).isEmpty();
                assertThat(database.queryLong("SELECT token FROM fencedlock_lock WHERE lock_name = ?", "by-keys"))
                        .isEqualTo(lease.token());
            }
        }
    }

    /** The set-up docs/jdbc-backend.md gives, in a schema that already has the application's tables. */
    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void theMigrationRunsBesideTheApplicationsOwnWithAHistoryTableOfItsOwn(TestDatabase.Kind kind) throws Exception {
        TestDatabase database = TestDatabase.create(kind, "jdbclock", 4);
        resources.add(database);
        database.execute("CREATE TABLE app_orders (id BIGINT PRIMARY KEY)");
        Flyway.configure()
                .dataSource(database.dataSource())
                .locations(JdbcLockSettings.MIGRATION_LOCATION)
                .table("fencedlock_lock_schema_history")
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .load()
                .migrate();
        try (Lease lease = client(database.dataSource(), Duration.ofMillis(50))
                .lock("migrated")
                .acquire(Duration.ofSeconds(5))) {
            assertThat(lease.isValid()).isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void aMissingLockTableFailsAtOnceNamingTheMigration(TestDatabase.Kind kind) {
        TestDatabase database = database(kind);
        LockClient client = JdbcLocks.create(
                LockConfig.builder().backend(JdbcLocks.BACKEND).build(),
                JdbcLockSettings.builder()
                        .dataSource(database.dataSource())
                        .table("no_such_lock_table")
                        .build());
        resources.add(client);
        assertThatThrownBy(() -> client.lock("unmigrated").acquire(Duration.ofMinutes(10)))
                .isInstanceOf(LockException.class)
                .isNotInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("unmigrated")
                .hasMessageContaining("no_such_lock_table")
                .hasMessageContaining(JdbcLockSettings.MIGRATION_LOCATION);
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void tokensFollowTheOneTokenOrderByTheDatabaseClock(TestDatabase.Kind kind) throws Exception {
        TestDatabase database = database(kind);
        LockClient client = client(database.dataSource(), Duration.ofMillis(50));
        String name = "order:" + kind;

        long before = databaseNow(database);
        long first;
        try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(5))) {
            first = lease.token();
        }
        assertThat(first).as("first token against the database clock").isGreaterThanOrEqualTo(TokenOrder.floor(before));
        assertThat(TokenOrder.epochMillis(first)).isLessThanOrEqualTo(databaseNow(database));

        // another backend issued a token an hour ahead for the same name; it was carried into the row
        long foreign = TokenOrder.floor(before + 3_600_000L);
        database.execute("UPDATE fencedlock_lock SET token = ? WHERE lock_name = ?", foreign, name);
        try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(5))) {
            assertThat(lease.token()).as("next token after a larger one").isEqualTo(foreign + 1);
        }

        // an operator deletes the row: the clock floor still puts the next token above the first
        database.execute("DELETE FROM fencedlock_lock WHERE lock_name = ?", name);
        while (databaseNow(database) <= before) {
            Thread.sleep(1);
        }
        try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(5))) {
            assertThat(lease.token()).isGreaterThan(first);
        }
    }

    /**
     * Replies delayed by a proxy make the grant reach the client late. The client must count the
     * lease from before it sent the statement, so what it believes left is never more than what the
     * database keeps, read afterwards on a direct connection.
     */
    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.Kind.class,
            names = {"POSTGRESQL", "MARIADB"})
    void slowRepliesShortenTheLeaseOnTheClientNeverBeyondTheDatabase(TestDatabase.Kind kind) throws Exception {
        TestDatabase database = database(kind);
        TcpProxy proxy = proxyTo(database);
        resources.add(proxy);
        LockClient slow = proxiedClient(database, proxy);
        resources.add(slow);
        proxy.delayReplies(Duration.ofMillis(150));
        String name = "slow:" + kind;
        Duration leaseTime = Duration.ofSeconds(10);
        try (Lease lease = slow.lock(name).acquire(Duration.ofSeconds(60), leaseTime)) {
            long readAt = System.nanoTime();
            Duration believed = lease.remaining();
            long keptMillis = database.queryLong(
                    "SELECT expires_at - " + nowSql(kind) + " FROM fencedlock_lock WHERE lock_name = ?", name);
            long sinceRead = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - readAt) + 1;
            assertThat(believed.toMillis())
                    .as(
                            "validity the client believes vs the database's grant (%d ms left, read %d ms later)",
                            keptMillis, sinceRead)
                    .isLessThanOrEqualTo(keptMillis + sinceRead);
            assertThat(believed).as("still a useful lease").isPositive();
            proxy.pass();
        }
    }

    /**
     * A client on a URL keeps its connections: a new connection (a server process, an
     * authentication) for every acquisition and every release made 50 calls take 4.7 s on PostgreSQL.
     * Counted through a proxy.
     */
    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.Kind.class,
            names = {"POSTGRESQL", "MARIADB"})
    void aClientOnAUrlReusesItsConnections(TestDatabase.Kind kind) throws Exception {
        TestDatabase database = database(kind);
        TcpProxy proxy = proxyTo(database);
        resources.add(proxy);
        LockClient client = proxiedClient(database, proxy);
        resources.add(client);
        for (int i = 0; i < 20; i++) {
            try (Lease lease = client.lock("reused:" + kind).acquire(Duration.ofSeconds(5))) {
                assertThat(lease.isValid()).isTrue();
            }
        }
        assertThat(proxy.acceptedConnections())
                .as("connections opened for 20 acquisitions and releases (one more listens on PostgreSQL)")
                .isLessThanOrEqualTo(3);
    }

    /** The backend's bounds are its own statements' and never stay on the application's connections. */
    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void theApplicationsPooledConnectionKeepsItsSettings(TestDatabase.Kind kind) throws Exception {
        // two connections for the calls (and on PostgreSQL one more that listens), each read after
        TestDatabase database = TestDatabase.create(kind, "jdbclock", kind == TestDatabase.Kind.POSTGRESQL ? 3 : 2)
                .migrate(JdbcLockSettings.MIGRATION_LOCATION);
        resources.add(database);
        String settings = switch (kind) {
            case H2 -> "SELECT CAST(LOCK_TIMEOUT() AS VARCHAR)";
            case POSTGRESQL -> "SELECT current_setting('lock_timeout') || '/' || current_setting('statement_timeout')";
            case MARIADB ->
                "SELECT CONCAT(@@innodb_lock_wait_timeout, '/', @@lock_wait_timeout, '/', @@max_statement_time)";
        };
        List<String> before = readOnEach(database, settings);
        assertThat(before).hasSize(2).containsOnly(before.get(0));
        LockClient client = client(database.dataSource(), Duration.ofMillis(50));
        for (int i = 0; i < 3; i++) {
            client.lock("settings").acquire(Duration.ofSeconds(5)).close();
        }
        assertThat(readOnEach(database, settings))
                .as("the pooled connections' session settings")
                .containsExactlyElementsOf(before);
    }

    /** {@code sql}'s one value on each of two connections of the pool, held at once. */
    private static List<String> readOnEach(TestDatabase database, String sql) throws Exception {
        try (java.sql.Connection first = database.connection();
                java.sql.Connection second = database.connection()) {
            List<String> values = new ArrayList<>();
            for (java.sql.Connection connection : List.of(first, second)) {
                try (java.sql.Statement statement = connection.createStatement();
                        java.sql.ResultSet row = statement.executeQuery(sql)) {
                    row.next();
                    values.add(row.getString(1));
                }
            }
            return values;
        }
    }

    @Test
    void aReleaseByAnotherProcessWakesAWaiterOnPostgreSqlWithoutWaitingForAPoll() throws Exception {
        TestDatabase database = database(TestDatabase.Kind.POSTGRESQL);
        LockClient holderClient = client(database.dataSource(), Duration.ofHours(1));
        LockClient waiterClient = client(database.dataSource(), Duration.ofHours(1));
        String name = "notify:" + System.nanoTime();
        Lease held = holderClient.lock(name).acquire(Duration.ofSeconds(5), Duration.ofSeconds(90));
        CompletableFuture<Optional<Lease>> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return waiterClient.lock(name).tryAcquire(Duration.ofSeconds(45));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        // let the waiter fail its first attempt and go to sleep for the rest of the 90 s grant
        Thread.sleep(500);
        // what another JVM's release does: clear the holder, announce the key
        database.execute("UPDATE fencedlock_lock SET holder = NULL WHERE lock_name = ?", name);
        database.queryLong("SELECT 1 FROM (SELECT pg_notify('fencedlock_lock', ?)) AS n", rowKey(name));
        Optional<Lease> next = waiter.get(60, TimeUnit.SECONDS);
        assertThat(next)
                .as("granted within its 45 s wait although polls were an hour apart and the grant had 90 s left")
                .isPresent();
        assertThat(next.get().token()).isGreaterThan(held.token());
        next.get().close();
        held.close();
    }

    private static String nowSql(TestDatabase.Kind kind) {
        return switch (kind) {
            case H2 -> "CAST(FLOOR(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000) AS BIGINT)";
            case POSTGRESQL -> "CAST(FLOOR(EXTRACT(EPOCH FROM statement_timestamp()) * 1000) AS BIGINT)";
            case MARIADB -> "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)";
        };
    }

    static String rowKey(String name) throws Exception {
        return HexFormat.of()
                .formatHex(MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8)));
    }

    /** A proxy in front of the database server of {@code database}. */
    static TcpProxy proxyTo(TestDatabase database) {
        java.net.URI uri = java.net.URI.create(database.jdbcUrl().substring("jdbc:".length()));
        return TcpProxy.start(uri.getHost(), uri.getPort());
    }

    /** A client with default settings on {@code database}'s URL through {@code proxy}; the caller closes it. */
    static LockClient proxiedClient(TestDatabase database, TcpProxy proxy) {
        return JdbcLocks.create(
                LockConfig.builder().backend(JdbcLocks.BACKEND).build(),
                JdbcLockSettings.builder()
                        .url(proxiedUrl(database, proxy))
                        .user(database.user())
                        .password(database.password())
                        .build());
    }

    /** {@code database}'s JDBC URL with the server's port replaced by the proxy's. */
    static String proxiedUrl(TestDatabase database, TcpProxy proxy) {
        return database.jdbcUrl().replaceFirst("//([^/:]+):\\d+/", "//$1:" + proxy.port() + "/");
    }
}

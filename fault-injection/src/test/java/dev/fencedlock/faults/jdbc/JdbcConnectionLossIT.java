package dev.fencedlock.faults.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.net.TcpProxy;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The jdbc backend when the holder's connections to the database fail while it holds a lock. The
 * lock lives in a table row, not in a session: a lost link costs the holder its lease only once
 * renewals have failed for the lease's validity, and then the database has expired the grant by
 * its own clock before anyone else is granted it.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class JdbcConnectionLossIT {

    /**
     * The holder's link is cut (a black hole: nothing answers, nothing is refused). Its renewals
     * time out, its lease runs out on its own clock, the database expires the grant on its clock,
     * and only then does a successor get the lock: at that moment the holder no longer believes it
     * holds it, the successor's token is larger, and the holder's late write is refused.
     */
    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.Kind.class,
            names = {"POSTGRESQL", "MARIADB"})
    void aHolderCutOffFromTheDatabaseLosesItsLeaseBeforeASuccessorIsGranted(TestDatabase.Kind kind) throws Exception {
        try (TestDatabase database = Migrations.database(kind);
                TcpProxy proxy = database.proxy();
                LockClient holderClient = JdbcClients.at(
                        database.jdbcUrlThrough(proxy), database.user(), database.password(), Duration.ofSeconds(2));
                LockClient successorClient = JdbcClients.on(database.dataSource(), Duration.ofSeconds(2));
                LockClient bystander = JdbcClients.on(database.dataSource(), Duration.ofSeconds(2))) {
            String name = "faults:cut:" + kind;
            FencedCounter counter = FencedCounter.create(database.dataSource(), name);
            Lease holder = holderClient.lock(name).acquire(Duration.ofSeconds(10));
            CountDownLatch lost = new CountDownLatch(1);
            holder.onLost((lease, cause) -> lost.countDown());

            proxy.blackhole();
            Lease successor = successorClient.lock(name).acquire(Duration.ofSeconds(60));
            boolean holderBelievedValid = holder.isValid();

            assertThat(holderBelievedValid)
                    .as("the cut-off holder still believed itself valid when the successor was granted")
                    .isFalse();
            assertThat(successor.token()).isGreaterThan(holder.token());
            assertThat(lost.await(30, TimeUnit.SECONDS))
                    .as("the holder was told of its loss")
                    .isTrue();
            assertThat(counter.increment(successor.token()))
                    .as("the successor's write")
                    .isTrue();
            assertThat(counter.increment(holder.token()))
                    .as("the cut-off holder's late write")
                    .isFalse();
            assertThat(counter.value()).isEqualTo(1);

            proxy.pass();
            holder.close();
            assertThat(bystander.lock(name).tryAcquire(Duration.ZERO))
                    .as("the old holder's close left the successor's grant alone")
                    .isEmpty();
            assertThat(successor.isValid()).isTrue();
            successor.close();
        }
    }

    /**
     * The database kills every session of the holder's pool, again and again, for four lease
     * lengths ({@code pg_terminate_backend} on PostgreSQL, {@code KILL} on MariaDB). Renewals that
     * hit a dead connection fail and are retried on a new one within the lease's validity, so the
     * holder keeps the lock throughout and nobody else is granted it.
     */
    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.Kind.class,
            names = {"POSTGRESQL", "MARIADB"})
    void killedSessionsDoNotCostTheHolderItsLease(TestDatabase.Kind kind) throws Exception {
        try (TestDatabase database = Migrations.database(kind);
                HikariDataSource holderPool = pool(database);
                LockClient holderClient = JdbcClients.on(recording(holderPool), Duration.ofSeconds(2));
                LockClient contender = JdbcClients.on(database.dataSource(), Duration.ofSeconds(2))) {
            String name = "faults:kill:" + kind;
            Lease holder = holderClient.lock(name).acquire(Duration.ofSeconds(10));
            AtomicInteger losses = new AtomicInteger();
            holder.onLost((lease, cause) -> losses.incrementAndGet());
            int killed = 0;
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
            while (System.nanoTime() < end) {
                killed += killSessions(database, kind);
                assertThat(contender.lock(name).tryAcquire(Duration.ofMillis(300)))
                        .as("a contender while the holder's sessions are being killed")
                        .isEmpty();
            }
            assertThat(killed).as("sessions killed").isPositive();
            assertThat(holder.isValid()).isTrue();
            assertThat(losses.get()).isZero();
            holder.close();
            assertThat(contender.lock(name).tryAcquire(Duration.ofSeconds(5))).isPresent();
        }
    }

    private static final Set<Long> SESSIONS = ConcurrentHashMap.newKeySet();

    private static HikariDataSource pool(TestDatabase database) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(database.jdbcUrl());
        config.setUsername(database.user());
        config.setPassword(database.password());
        config.setMaximumPoolSize(4);
        return new HikariDataSource(config);
    }

    /** {@code pool}, remembering the server session id of every connection it hands out. */
    private static DataSource recording(HikariDataSource pool) {
        return (DataSource) Proxy.newProxyInstance(
                JdbcConnectionLossIT.class.getClassLoader(), new Class<?>[] {DataSource.class}, (p, method, args) -> {
                    try {
                        Object result = method.invoke(pool, args);
                        if (result instanceof Connection connection) {
                            SESSIONS.add(sessionId(connection));
                        }
                        return result;
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private static long sessionId(Connection connection) throws java.sql.SQLException {
        String product = connection.getMetaData().getDatabaseProductName().toLowerCase(java.util.Locale.ROOT);
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(
                        product.contains("postgres") ? "SELECT pg_backend_pid()" : "SELECT CONNECTION_ID()")) {
            row.next();
            return row.getLong(1);
        }
    }

    /** Kills the recorded sessions that still exist; returns how many. */
    private static int killSessions(TestDatabase database, TestDatabase.Kind kind) throws Exception {
        int killed = 0;
        try (Connection admin = database.connection();
                Statement statement = admin.createStatement()) {
            for (Long id : Set.copyOf(SESSIONS)) {
                try {
                    if (kind == TestDatabase.Kind.POSTGRESQL) {
                        try (ResultSet row = statement.executeQuery("SELECT pg_terminate_backend(" + id + ")")) {
                            row.next();
                            killed += row.getBoolean(1) ? 1 : 0;
                        }
                    } else {
                        statement.execute("KILL " + id);
                        killed++;
                    }
                } catch (java.sql.SQLException gone) {
                    // the session ended already
                }
                SESSIONS.remove(id);
            }
        }
        return killed;
    }
}

package dev.fencedlock.spring.receiver;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.FencedHttpRequests;
import dev.fencedlock.FencingHeader;
import dev.fencedlock.FencingTokenCheck;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.jdbc.FenceRowBusyException;
import dev.fencedlock.jdbc.JdbcFencing;
import dev.fencedlock.spi.TokenOrder;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.db.TestDatabase.Kind;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A receiver without Spring: the JDK's {@link HttpServer} on a loopback port, whose handler checks
 * the presented header with {@link FencingTokenCheck} and writes in {@link
 * JdbcFencing#inTransaction(DataSource, String, long, Duration, dev.fencedlock.jdbc.SqlWork)}, as a
 * plain Java service would. The same cases as the Spring receiver's, on H2 and PostgreSQL.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class JdkHttpServerReceiverIT {
    private static final Map<Kind, TestDatabase> DATABASES = new EnumMap<>(Kind.class);
    private static LockClient holders;

    @BeforeAll
    static void holders() {
        holders = LockClient.create(LockConfig.builder().backend("local").build());
    }

    @AfterAll
    static void close() {
        try {
            DATABASES.values().forEach(TestDatabase::close);
        } finally {
            holders.close();
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = Kind.class,
            names = {"H2", "POSTGRESQL"})
    void aPausedHolderIsRefusedAfterTheNewerHolderAndItsEffectIsAbsent(Kind kind) throws Exception {
        TestDatabase db = database(kind);
        String order = Holders.order();
        try (Receiver receiver = Receiver.start(db.dataSource());
                Lease paused = acquire(order);
                Lease newer = acquireAfterLosing(order)) {
            assertThat(ship(receiver, order, "newer", newer).statusCode()).isEqualTo(200);
            HttpResponse<String> refused = ship(receiver, order, "paused", paused);

            assertThat(refused.statusCode()).isEqualTo(409);
            assertThat(refused.body()).contains(Long.toString(paused.token()), Long.toString(newer.token()));
            assertThat(shippedBy(db, order)).containsExactly("newer");
            assertThat(fenceToken(db, order)).isEqualTo(newer.token());
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = Kind.class,
            names = {"H2", "POSTGRESQL"})
    void theNewerCallArrivingFirstRefusesTheOlder(Kind kind) throws Exception {
        TestDatabase db = database(kind);
        String order = Holders.order();
        try (Receiver receiver = Receiver.start(db.dataSource())) {
            String olderHeader;
            try (Lease first = acquire(order)) {
                olderHeader = FencingHeader.encode(first);
            }
            try (Lease second = acquire(order)) {
                assertThat(ship(receiver, order, "second", second).statusCode()).isEqualTo(200);
            }
            assertThat(Calls.send(receiver.calls().post("/shipments/" + order, "by", "first"), olderHeader)
                            .statusCode())
                    .isEqualTo(409);
        }
        assertThat(shippedBy(db, order)).containsExactly("second");
    }

    @ParameterizedTest
    @EnumSource(
            value = Kind.class,
            names = {"H2", "POSTGRESQL"})
    void aReceiverRestartedOnTheSameDatabaseStillRefusesTheOlderToken(Kind kind) throws Exception {
        TestDatabase db = database(kind);
        String order = Holders.order();
        try (Lease paused = acquire(order);
                Lease newer = acquireAfterLosing(order)) {
            try (HikariDataSource pool = pool(db);
                    Receiver before = Receiver.start(pool)) {
                assertThat(ship(before, order, "newer", newer).statusCode()).isEqualTo(200);
            }
            try (HikariDataSource pool = pool(db);
                    Receiver after = Receiver.start(pool)) {
                assertThat(ship(after, order, "paused", paused).statusCode()).isEqualTo(409);
            }
            assertThat(shippedBy(db, order)).containsExactly("newer");
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = Kind.class,
            names = {"H2", "POSTGRESQL"})
    void missingMalformedAndForgedTokensAreRefusedAndChangeNothing(Kind kind) throws Exception {
        TestDatabase db = database(kind);
        String order = Holders.order();
        String lock = "orders:" + order;
        try (Receiver receiver = Receiver.start(db.dataSource());
                Lease real = acquire(order)) {
            assertThat(Calls.send(receiver.calls().post("/shipments/" + order, "by", "none"))
                            .statusCode())
                    .as("no header")
                    .isEqualTo(428);
            for (String malformed : List.of(
                    "garbage ;;", "\"" + lock + "\";token=\"-1\"", "\"" + lock + "\";token=\"x\"", "x".repeat(9000))) {
                assertThat(Calls.send(receiver.calls().post("/shipments/" + order, "by", "m"), malformed)
                                .statusCode())
                        .as(malformed.length() > 40 ? "over 8192 characters" : malformed)
                        .isEqualTo(400);
            }
            assertThat(fenceToken(db, order)).isNull();

            assertThat(ship(receiver, order, "real", real).statusCode()).isEqualTo(200);
            long forged = TokenOrder.floor(
                    System.currentTimeMillis() + Duration.ofHours(1).toMillis());
            HttpResponse<String> refused = Calls.send(
                    receiver.calls().post("/shipments/" + order, "by", "forger"),
                    FencingHeader.encode(Map.of(lock, forged)));

            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(403);
            assertThat(fenceToken(db, order)).as("the fence row, read after").isEqualTo(real.token());
            assertThat(shippedBy(db, order)).containsExactly("real");
        }
    }

    /**
     * The plain Java receiver: {@code POST /shipments/<order>?by=<who>}, fenced by the token
     * presented for {@code orders:<order>}.
     */
    private static final class Receiver implements AutoCloseable {
        private static final FencingTokenCheck CHECK = FencingTokenCheck.defaults();
        private final HttpServer server;

        private Receiver(HttpServer server) {
            this.server = server;
        }

        static Receiver start(DataSource dataSource) throws IOException {
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/shipments/", exchange -> handle(exchange, dataSource));
            server.start();
            return new Receiver(server);
        }

        private static void handle(HttpExchange exchange, DataSource dataSource) throws IOException {
            String order = exchange.getRequestURI().getPath().substring("/shipments/".length());
            String by = exchange.getRequestURI().getQuery().substring("by=".length());
            String lockName = "orders:" + order;
            List<String> lines = exchange.getRequestHeaders().get(FencingHeader.NAME);
            String header = lines == null ? null : String.join(", ", lines);
            int status;
            String body;
            try {
                long token = CHECK.tokenFor(lockName, header);
                JdbcFencing.inTransaction(dataSource, lockName, token, Duration.ofSeconds(30), c -> {
                    try (PreparedStatement insert = c.prepareStatement(
                            "insert into shipments (order_id, shipped_by, token) values (?, ?, ?)")) {
                        insert.setString(1, order);
                        insert.setString(2, by);
                        insert.setLong(3, token);
                        return insert.executeUpdate();
                    }
                });
                status = 200;
                body = "shipped";
            } catch (FenceRefusedException refused) {
                status = switch (refused.reason()) {
                    case TOKEN_NOT_PRESENTED -> 428;
                    case TOKEN_NOT_TRUSTED -> 403;
                    default -> 409;
                };
                body = refused.getMessage();
            } catch (IllegalArgumentException malformed) {
                status = 400;
                body = malformed.getMessage();
            } catch (FenceRowBusyException busy) {
                exchange.getResponseHeaders().set("Retry-After", "1");
                status = 503;
                body = busy.getMessage();
            } catch (Exception e) {
                status = 500;
                body = String.valueOf(e);
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }

        Calls calls() {
            return new Calls(server.getAddress().getPort());
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }

    private static HttpResponse<String> ship(Receiver receiver, String order, String by, Lease lease) {
        return Calls.send(FencedHttpRequests.withToken(receiver.calls().post("/shipments/" + order, "by", by), lease));
    }

    private static synchronized TestDatabase database(Kind kind) {
        return DATABASES.computeIfAbsent(
                kind,
                k -> TestDatabase.create(k, "jdkrecv", 4)
                        .migrate("classpath:db/fencedlock/migration", "classpath:db/receiver-test"));
    }

    private static HikariDataSource pool(TestDatabase db) {
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl(db.jdbcUrl());
        pool.setUsername(db.user());
        pool.setPassword(db.password());
        pool.setMaximumPoolSize(2);
        return pool;
    }

    private static Lease acquire(String order) throws InterruptedException {
        return Holders.acquire(holders, order);
    }

    private static Lease acquireAfterLosing(String order) throws InterruptedException {
        return Holders.acquireAfterLosing(holders, order);
    }

    private static List<String> shippedBy(TestDatabase db, String order) throws Exception {
        try (var connection = db.connection();
                PreparedStatement select = connection.prepareStatement(
                        "select shipped_by from shipments where order_id = ? order by id")) {
            select.setString(1, order);
            try (var rows = select.executeQuery()) {
                List<String> by = new java.util.ArrayList<>();
                while (rows.next()) {
                    by.add(rows.getString(1));
                }
                return by;
            }
        }
    }

    private static Long fenceToken(TestDatabase db, String order) {
        return db.queryLong("select token from fencedlock_fence where lock_name = ?", "orders:" + order);
    }
}

package dev.fencedlock.spring.receiver;

import static dev.fencedlock.spring.receiver.Holders.lockName;
import static dev.fencedlock.spring.receiver.Holders.order;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.FenceRefusedException.Reason;
import dev.fencedlock.FencedHttpRequests;
import dev.fencedlock.FencingHeader;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.jdbc.FenceTable;
import dev.fencedlock.jdbc.internal.FencedTransaction;
import dev.fencedlock.spi.TokenOrder;
import dev.fencedlock.spring.FencedWriteRefusedException;
import dev.fencedlock.testkit.db.TestDatabase;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.TestPropertySource;

/**
 * A {@code @FencedBy} receiver served by Tomcat on a loopback port, called by lock holders over
 * HTTP with the JDK's client: stale, reordered, missing, malformed and forged tokens, and what the
 * receiver's database keeps in each case. Holders take real leases of the {@code local} backend
 * ({@link Holders}); a holder paused past its lease is played by {@link
 * Holders#acquireAfterLosing}, after which it still believes its lease valid while the next holder
 * gets a larger token. Subclasses choose the database.
 */
@SpringBootTest(classes = ReceiverApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@TestPropertySource(locations = ReceiverApplication.PROPERTIES)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
abstract class AbstractFencedByIT {
    @LocalServerPort
    int port;

    @Autowired
    TestDatabase database;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    ReceiverApplication.Refusals refusals;

    @Autowired
    Shipments shipments;

    /** The senders' lock service: the application's client of the JVM-wide local backend. */
    @Autowired
    LockClient holders;

    @Test
    void aHolderPausedPastItsLeaseIsRefusedAfterTheNewerHolderCalled() throws Exception {
        String order = order();
        Calls calls = new Calls(port);
        try (Lease paused = acquire(order);
                Lease newer = acquireAfterLosing(order)) {
            HttpResponse<String> accepted =
                    Calls.send(FencedHttpRequests.withToken(calls.post("/shipments/" + order, "by", "newer"), newer));
            assertThat(accepted.statusCode()).isEqualTo(200);
            assertThat(accepted.body()).isEqualTo(newer.token() + " presented");

            // the paused holder wakes up believing its lease valid, and makes its call
            assertThat(paused.isValid()).isTrue();
            HttpResponse<String> refused =
                    Calls.send(FencedHttpRequests.withToken(calls.post("/shipments/" + order, "by", "paused"), paused));

            assertStale(refused, order, paused.token(), newer.token());
            assertThat(shippedBy(order))
                    .as("the receiver's effect of the paused holder is absent")
                    .containsExactly("newer");
            assertThat(fenceToken(order)).isEqualTo(newer.token());
            assertThat(refusals.seen())
                    .as("reported to the FenceRefusalListener beans")
                    .anySatisfy(refusal -> {
                        assertThat(refusal.lockName()).isEqualTo(lockName(order));
                        assertThat(refusal.token()).isEqualTo(paused.token());
                        assertThat(refusal.reason()).isEqualTo(Reason.NEWER_TOKEN_REGISTERED);
                    });
        }
    }

    @Test
    void theNewerCallArrivingBeforeTheOlderOneRefusesTheOlder() throws Exception {
        String order = order();
        Calls calls = new Calls(port);
        String olderHeader;
        long older;
        try (Lease first = acquire(order)) {
            // the first holder sends its call, which the network delays past the next holder's
            olderHeader = FencingHeader.encode(first);
            older = first.token();
        }
        try (Lease second = acquire(order)) {
            assertThat(Calls.send(calls.post("/shipments/" + order, "by", "second"), FencingHeader.encode(second))
                            .statusCode())
                    .isEqualTo(200);
            HttpResponse<String> late = Calls.send(calls.post("/shipments/" + order, "by", "first"), olderHeader);

            assertStale(late, order, older, second.token());
            assertThat(shippedBy(order)).containsExactly("second");
            assertThat(fenceToken(order)).isEqualTo(second.token());
        }
    }

    /** The receiver's register is its database: a new process on it refuses what the old one would have. */
    @Test
    void aRestartedReceiverStillRefusesTheOlderToken() throws Exception {
        String order = order();
        try (Lease paused = acquire(order);
                Lease newer = acquireAfterLosing(order)) {
            try (ReceiverInstance before = ReceiverInstance.start(database)) {
                assertThat(Calls.send(FencedHttpRequests.withToken(
                                        before.calls().post("/shipments/" + order, "by", "newer"), newer))
                                .statusCode())
                        .isEqualTo(200);
            }
            try (ReceiverInstance after = ReceiverInstance.start(database)) {
                HttpResponse<String> refused = Calls.send(FencedHttpRequests.withToken(
                        after.calls().post("/shipments/" + order, "by", "paused"), paused));

                assertStale(refused, order, paused.token(), newer.token());
            }
            assertThat(shippedBy(order)).containsExactly("newer");
            assertThat(fenceToken(order)).isEqualTo(newer.token());
        }
    }

    @Test
    void twoCallsWithTheSameTokenBothLandLikeTwoTransactionsOfOneLease() throws Exception {
        String order = order();
        Calls calls = new Calls(port);
        try (Lease lease = acquire(order)) {
            assertThat(Calls.send(FencedHttpRequests.withToken(calls.post("/shipments/" + order, "by", "one"), lease))
                            .statusCode())
                    .isEqualTo(200);
            assertThat(Calls.send(FencedHttpRequests.withToken(calls.post("/shipments/" + order, "by", "two"), lease))
                            .statusCode())
                    .isEqualTo(200);
        }
        assertThat(shippedBy(order)).containsExactly("one", "two");
    }

    @Test
    void noTokenForTheLockIs428AndChangesNothing() throws Exception {
        String order = order();
        Calls calls = new Calls(port);

        HttpResponse<String> none = Calls.send(calls.post("/shipments/" + order, "by", "none"));
        assertThat(none.statusCode()).isEqualTo(428);
        Map<String, Object> problem = Calls.problem(none);
        assertThat(problem.get("type")).isEqualTo("https://fencedlock.dev/problems/token-not-presented");
        assertThat(problem.get("status")).isEqualTo(428);
        assertThat(problem.get("reason")).isEqualTo("TOKEN_NOT_PRESENTED");
        assertThat(problem.get("lockName")).isEqualTo(lockName(order));
        assertThat(problem).doesNotContainKey("presentedToken");

        try (Lease other = acquire(order + "-other")) {
            HttpResponse<String> otherLock =
                    Calls.send(calls.post("/shipments/" + order, "by", "other"), FencingHeader.encode(other));
            assertThat(otherLock.statusCode()).isEqualTo(428);
            assertThat((String) Calls.problem(otherLock).get("detail")).contains("other locks only");
        }
        assertThat(shippedBy(order)).isEmpty();
        assertThat(fenceToken(order)).isNull();
    }

    @Test
    void aMalformedHeaderIs400AndChangesNothing() {
        String order = order();
        String lock = lockName(order);
        Calls calls = new Calls(port);
        Map<String, String> malformed = new LinkedHashMap<>();
        malformed.put("not a list", "garbage ;;");
        malformed.put("a token that is not a number", "\"" + lock + "\";token=\"12ab\"");
        malformed.put("a negative token", "\"" + lock + "\";token=\"-7\"");
        malformed.put("a token beyond 64 bits", "\"" + lock + "\";token=\"9223372036854775808\"");
        malformed.put("a lock name the rules refuse", "%\"orders%07bell\";token=\"7\", \"" + lock + "\";token=\"7\"");
        StringBuilder many = new StringBuilder();
        for (int i = 0; i <= FencingHeader.MAX_LOCKS; i++) {
            many.append("\"l").append(i).append("\";token=\"1\", ");
        }
        malformed.put("more than 64 locks", many + "\"" + lock + "\";token=\"1\"");
        String longName = "n".repeat(200);
        StringBuilder huge = new StringBuilder();
        for (int i = 0; i < 45; i++) {
            huge.append('"').append(longName).append(i).append("\";token=\"1\", ");
        }
        malformed.put("over 8192 characters", huge + "\"" + lock + "\";token=\"1\"");

        malformed.forEach((what, value) -> {
            HttpResponse<String> response = Calls.send(calls.post("/shipments/" + order, "by", "x"), value);
            assertThat(response.statusCode()).as(what).isEqualTo(400);
            Map<String, Object> problem = Calls.problem(response);
            assertThat(problem.get("type"))
                    .as(what)
                    .isEqualTo("https://fencedlock.dev/problems/malformed-token-header");
            assertThat((String) problem.get("detail")).as(what).contains("malformed");
        });
        assertThat(shippedBy(order)).isEmpty();
        assertThat(fenceToken(order)).isNull();
    }

    /**
     * A token whose time part lies an hour ahead was never granted: refused before the fence row is
     * touched, so the real holder it would otherwise lock out goes on.
     */
    @Test
    void aForgedTokenAnHourAheadIs403AndTheFenceRowUnchanged() throws Exception {
        String order = order();
        Calls calls = new Calls(port);
        try (Lease real = acquire(order)) {
            assertThat(Calls.send(FencedHttpRequests.withToken(calls.post("/shipments/" + order, "by", "real"), real))
                            .statusCode())
                    .isEqualTo(200);
            long forged = TokenOrder.floor(
                    System.currentTimeMillis() + Duration.ofHours(1).toMillis());

            HttpResponse<String> response = Calls.send(
                    calls.post("/shipments/" + order, "by", "forger"),
                    FencingHeader.encode(Map.of(lockName(order), forged)));

            assertThat(response.statusCode()).isEqualTo(403);
            Map<String, Object> problem = Calls.problem(response);
            assertThat(problem.get("reason")).isEqualTo("TOKEN_NOT_TRUSTED");
            assertThat(problem.get("presentedToken")).isEqualTo(Long.toString(forged));
            assertThat((String) problem.get("detail")).contains("ahead");
            assertThat(fenceToken(order)).as("the fence row, read after").isEqualTo(real.token());
            assertThat(Calls.send(FencedHttpRequests.withToken(calls.post("/shipments/" + order, "by", "real"), real))
                            .statusCode())
                    .as("the real holder is not locked out")
                    .isEqualTo(200);
        }
        assertThat(shippedBy(order)).containsExactly("real", "real");
    }

    @Test
    void aJpaReceiverStampsTheEntityWithThePresentedToken() throws Exception {
        String order = order();
        Calls calls = new Calls(port);
        try (Lease paused = acquire(order);
                Lease newer = acquireAfterLosing(order)) {
            HttpResponse<String> packed = Calls.send(
                    FencedHttpRequests.withToken(calls.post("/parcels/" + order, "contents", "books"), newer));
            assertThat(packed.statusCode()).as(packed.body()).isEqualTo(200);
            assertThat(parcel(order)).isEqualTo(Map.of("contents", "books", "fence", newer.token()));

            HttpResponse<String> stale = Calls.send(
                    FencedHttpRequests.withToken(calls.post("/parcels/" + order, "contents", "bricks"), paused));
            assertStale(stale, order, paused.token(), newer.token());
            assertThat(parcel(order)).isEqualTo(Map.of("contents", "books", "fence", newer.token()));
        }
        // the parcels table is protected (fencedlock.protected-tables=protect): the receiver's write
        // passed the database's own check, which an unfenced write does not
        assertThatThrownBy(() -> jdbc.update("update parcels set contents = 'unfenced' where order_id = ?", order))
                .isInstanceOf(DataAccessException.class);
        assertThat(parcel(order)).containsEntry("contents", "books");
    }

    /** An older transaction holds the fence row for the receiver's whole bound (2 s here): 503, try again. */
    @Test
    void aFenceRowHeldForTheWholeBoundIs503WithRetryAfter() throws Exception {
        String order = order();
        Calls calls = new Calls(port);
        try (Lease lease = acquire(order);
                Connection holder = database.dataSource().getConnection()) {
            holder.setAutoCommit(false);
            FencedTransaction held = FencedTransaction.of(
                    FenceTable.standard(), holder, lockName(order), lease.token(), Duration.ofMinutes(1));
            held.begin();
            try {
                HttpResponse<String> busy = Calls.send(
                        FencedHttpRequests.withToken(calls.post("/shipments/" + order, "by", "waiter"), lease));

                assertThat(busy.statusCode()).as(busy.body()).isEqualTo(503);
                assertThat(busy.headers().firstValue("Retry-After")).hasValue("1");
                Map<String, Object> problem = Calls.problem(busy);
                assertThat(problem.get("reason")).isEqualTo("FENCE_ROW_BUSY");
                assertThat(problem.get("lockName")).isEqualTo(lockName(order));
            } finally {
                holder.rollback();
                held.afterCompletion();
                holder.setAutoCommit(true);
            }
        }
        assertThat(shippedBy(order)).isEmpty();
    }

    @Test
    void aCallThatServesNoRequestIsRefusedAsPresentingNoToken() {
        String order = order();
        assertThatThrownBy(() -> shipments.ship(order, "direct"))
                .isInstanceOfSatisfying(FencedWriteRefusedException.class, refused -> {
                    assertThat(refused.reason()).isEqualTo(Reason.TOKEN_NOT_PRESENTED);
                    assertThat(refused.lockName()).isEqualTo(lockName(order));
                })
                .hasMessageContaining("serves no HTTP request");
        assertThat(shippedBy(order)).isEmpty();
    }

    private static void assertStale(HttpResponse<String> response, String order, long presented, long newer) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(409);
        Map<String, Object> problem = Calls.problem(response);
        assertThat(problem.get("type")).isEqualTo("https://fencedlock.dev/problems/newer-token-registered");
        assertThat(problem.get("status")).isEqualTo(409);
        assertThat(problem.get("reason")).isEqualTo("NEWER_TOKEN_REGISTERED");
        assertThat(problem.get("lockName")).isEqualTo(lockName(order));
        assertThat(problem.get("presentedToken")).isEqualTo(Long.toString(presented));
        assertThat(problem.get("newerToken")).isEqualTo(Long.toString(newer));
        assertThat((String) problem.get("instance")).endsWith("/" + order);
    }

    private Lease acquire(String order) throws InterruptedException {
        return Holders.acquire(holders, order);
    }

    private Lease acquireAfterLosing(String order) throws InterruptedException {
        return Holders.acquireAfterLosing(holders, order);
    }

    private List<String> shippedBy(String order) {
        return jdbc.queryForList(
                "select shipped_by from shipments where order_id = ? order by id", String.class, order);
    }

    private Long fenceToken(String order) {
        List<Long> tokens = jdbc.queryForList(
                "select token from fencedlock_fence where lock_name = ?", Long.class, lockName(order));
        return tokens.isEmpty() ? null : tokens.get(0);
    }

    private Map<String, Object> parcel(String order) {
        return jdbc.queryForObject(
                "select contents, fence from parcels where order_id = ?",
                (rows, n) -> Map.of("contents", rows.getString(1), "fence", rows.getLong(2)),
                order);
    }
}

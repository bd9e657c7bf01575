package dev.fencedlock.spring.receiver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.FencedHttpRequests;
import dev.fencedlock.FencingKey;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.TestPropertySource;

/**
 * A receiver that requires signed tokens, during a key rotation: it signs with (and accepts)
 * {@code 2026-12} and still accepts {@code 2026-11} and {@code 2025.10}. An unsigned, wrongly signed
 * or unknown-key token is refused with 403 before the fence row is touched; a token signed with an
 * accepted key lands.
 */
@SpringBootTest(classes = ReceiverApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@TestPropertySource(
        locations = ReceiverApplication.PROPERTIES,
        properties = {
            "receiver.test-database=H2",
            "fencedlock.token.require-signature=true",
            "fencedlock.token.signing-key-id=2026-12",
            // 32 bytes of 'n', 'o' and 'p'
            "fencedlock.token.signing-key=bm5ubm5ubm5ubm5ubm5ubm5ubm5ubm5ubm5ubm5ubm4=",
            "fencedlock.token.accepted-keys.2026-11=b29vb29vb29vb29vb29vb29vb29vb29vb29vb29vb28=",
            "fencedlock.token.accepted-keys[2025.10]=cHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHA="
        })
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class FencedBySignedIT {
    private static final FencingKey CURRENT = key("2026-12", 'n');
    private static final FencingKey ROTATED = key("2026-11", 'o');
    private static final FencingKey OLDEST = key("2025.10", 'p');

    @LocalServerPort
    int port;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    LockClient holders;

    @Test
    void anUnsignedWronglySignedOrUnknownKeyTokenIsRefusedAndChangesNothing() throws Exception {
        String order = Holders.order();
        try (Lease lease = acquire(order)) {
            assertRefused(FencedHttpRequests.withToken(post(order, "unsigned"), lease), "not signed");
            assertRefused(
                    FencedHttpRequests.withSignedToken(post(order, "wrong"), key("2026-12", 'x'), lease), "is wrong");
            assertRefused(
                    FencedHttpRequests.withSignedToken(post(order, "unknown"), key("2024-01", 'n'), lease),
                    "does not know");
        }
        assertThat(shippedBy(order)).isEmpty();
        assertThat(jdbc.queryForList(
                        "select token from fencedlock_fence where lock_name = ?", Long.class, "orders:" + order))
                .as("the fence row was never touched")
                .isEmpty();
    }

    @Test
    void aTokenSignedWithTheCurrentOrARotatedKeyLands() throws Exception {
        String order = Holders.order();
        for (FencingKey key : List.of(CURRENT, ROTATED, OLDEST)) {
            try (Lease lease = acquire(order)) {
                HttpResponse<String> response =
                        Calls.send(FencedHttpRequests.withSignedToken(post(order, key.id()), key, lease));
                assertThat(response.statusCode())
                        .as(key + ": " + response.body())
                        .isEqualTo(200);
            }
        }
        assertThat(shippedBy(order)).containsExactly("2026-12", "2026-11", "2025.10");
    }

    private void assertRefused(HttpRequest.Builder request, String why) {
        HttpResponse<String> response = Calls.send(request);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(403);
        Map<String, Object> problem = Calls.problem(response);
        assertThat(problem).containsEntry("reason", "TOKEN_NOT_TRUSTED");
        assertThat((String) problem.get("detail")).contains(why);
    }

    private HttpRequest.Builder post(String order, String by) {
        return new Calls(port).post("/shipments/" + order, "by", by);
    }

    private List<String> shippedBy(String order) {
        return jdbc.queryForList(
                "select shipped_by from shipments where order_id = ? order by id", String.class, order);
    }

    private Lease acquire(String order) throws InterruptedException {
        return Holders.acquire(holders, order);
    }

    private static FencingKey key(String id, char fill) {
        return FencingKey.of(id, String.valueOf(fill).repeat(32).getBytes(StandardCharsets.US_ASCII));
    }
}

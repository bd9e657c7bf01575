package dev.fencedlock.examples.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.FencingHeader;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The example's shipping service on a real loopback port, called as the example's sales call it:
 * what it answers for a stale, a missing, a malformed and a forged token, and what its database then
 * holds.
 */
class ShippingServiceIT {
    private static final String LOCK = OrderPlacer.lockName("sku-1");

    private final HttpClient http = HttpClient.newHttpClient();
    private ShippingService service;

    @BeforeEach
    void start() throws IOException {
        service = ShippingService.start(4);
    }

    @AfterEach
    void stop() {
        service.close();
    }

    /** A token as a backend would grant it now: the grant time shifted left 16 bits, plus a count. */
    private static long grantedNow(long count) {
        return (System.currentTimeMillis() << 16) + count;
    }

    private HttpResponse<String> ship(String sku, long order, String header) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(service.uri().resolve("/shipments"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("sku=" + sku + "&order=" + order));
        if (header != null) {
            request.header(FencingHeader.NAME, header);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    private HttpResponse<String> ship(long order, long token) throws Exception {
        return ship("sku-1", order, FencingHeader.encode(Map.of(LOCK, token)));
    }

    private List<String> get(String path) throws Exception {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(service.uri().resolve(path)).build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body().lines().toList();
    }

    @Test
    void aStaleCallAfterTheNewerHoldersIsRefusedWith409AndWritesNothing() throws Exception {
        long older = grantedNow(1);
        long newer = older + 1;
        assertThat(ship(newer, newer).statusCode()).isEqualTo(201);

        HttpResponse<String> stale = ship(older, older);

        assertThat(stale.statusCode()).isEqualTo(409);
        assertThat(stale.headers().firstValue("Content-Type")).hasValue(ProblemDetails.CONTENT_TYPE);
        assertThat(stale.body())
                .contains("\"type\":\"https://fencedlock.dev/problems/newer-token-registered\"")
                .contains("\"status\":409")
                .contains("\"lockName\":\"" + LOCK + "\"")
                .contains("\"presentedToken\":\"" + older + "\"")
                .contains("\"newerToken\":\"" + newer + "\"")
                .contains("\"reason\":\"NEWER_TOKEN_REGISTERED\"");
        assertThat(get("/shipments")).containsExactly("sku-1 " + newer);
        assertThat(get("/refusals")).containsExactly(LOCK + " " + older + " " + newer);
    }

    @Test
    void callsWithTheSameTokenRunLikeTwoTransactionsOfOneLeaseAndAnOrderShipsOnce() throws Exception {
        long token = grantedNow(7);
        assertThat(ship(token, token).statusCode()).isEqualTo(201);
        assertThat(ship(token - 5, token).statusCode())
                .as("another order under the same token")
                .isEqualTo(201);
        assertThat(ship(token, token + 1).statusCode())
                .as("the same order again, under a later lease")
                .isEqualTo(200);
        assertThat(get("/shipments")).containsExactlyInAnyOrder("sku-1 " + token, "sku-1 " + (token - 5));
    }

    @Test
    void aCallWithoutATokenForTheLockIsRefusedWith428() throws Exception {
        HttpResponse<String> none = ship("sku-1", 1, null);
        HttpResponse<String> otherLock =
                ship("sku-1", 1, FencingHeader.encode(Map.of("inventory:sku-2", grantedNow(0))));

        assertThat(none.statusCode()).isEqualTo(428);
        assertThat(none.body()).contains("\"reason\":\"TOKEN_NOT_PRESENTED\"").doesNotContain("presentedToken");
        assertThat(otherLock.statusCode()).isEqualTo(428);
        assertThat(get("/shipments")).isEmpty();
    }

    @Test
    void aMalformedHeaderOrBodyIsRefusedWith400() throws Exception {
        HttpResponse<String> malformed = ship("sku-1", 1, "\"" + LOCK + "\";token=7");
        HttpResponse<String> negative = ship("sku-1", 1, "\"" + LOCK + "\";token=\"-7\"");
        HttpResponse<String> badSku = ship("sku 1", 1, FencingHeader.encode(Map.of(LOCK, grantedNow(0))));

        assertThat(malformed.statusCode()).isEqualTo(400);
        assertThat(malformed.body()).contains("malformed Fencing-Token value");
        assertThat(negative.statusCode()).isEqualTo(400);
        assertThat(negative.body()).contains("negative");
        assertThat(badSku.statusCode()).isEqualTo(400);
        assertThat(get("/shipments")).isEmpty();
    }

    @Test
    void aForgedTokenAnHourAheadIsRefusedWith403AndLeavesTheFenceRowAsItWas() throws Exception {
        long forged = (System.currentTimeMillis() + TimeUnit.HOURS.toMillis(1)) << 16;

        HttpResponse<String> refused = ship(forged, forged);

        assertThat(refused.statusCode()).isEqualTo(403);
        assertThat(refused.body()).contains("\"reason\":\"TOKEN_NOT_TRUSTED\"");
        long real = grantedNow(0);
        assertThat(ship(real, real).statusCode())
                .as("a real holder is still let in: the forged token did not raise the fence row")
                .isEqualTo(201);
        assertThat(get("/shipments")).containsExactly("sku-1 " + real);
    }
}

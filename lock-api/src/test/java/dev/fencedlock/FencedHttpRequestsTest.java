package dev.fencedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.FenceRefusedException.Reason;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FencedHttpRequestsTest {
    private static final URI URI = java.net.URI.create("http://127.0.0.1:1/ship");

    @Test
    void theRequestCarriesTheTokensOfItsLeases() {
        HttpRequest request = FencedHttpRequests.withToken(
                        HttpRequest.newBuilder(URI), new Held("orders", 7L, true), new Held("stock", 9L, true))
                .build();

        assertThat(FencingHeader.decode(
                        request.headers().firstValue(FencingHeader.NAME).orElseThrow()))
                .containsExactly(Map.entry("orders", 7L), Map.entry("stock", 9L));
    }

    @Test
    void aLeaseNoLongerValidRefusesTheRequestBeforeTheHeaderIsSet() {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI);

        assertThatThrownBy(() -> FencedHttpRequests.withToken(builder, new Held("orders", 7L, false)))
                .isInstanceOfSatisfying(FenceRefusedException.class, refused -> {
                    assertThat(refused.reason()).isEqualTo(Reason.LEASE_NOT_VALID);
                    assertThat(refused.token()).isEqualTo(7L);
                });
        assertThat(builder.build().headers().firstValue(FencingHeader.NAME)).isEmpty();
    }

    @Test
    void aSignedTokenPassesACheckThatRequiresTheKey() {
        FencingKey key = FencingKey.of("k1", new byte[32]);
        long token = dev.fencedlock.spi.TokenOrder.floor(System.currentTimeMillis());
        HttpRequest request = FencedHttpRequests.withSignedToken(
                        HttpRequest.newBuilder(URI), key, new Held("orders", token, true))
                .build();

        FencingTokenCheck check =
                FencingTokenCheck.builder().acceptKeys(key).requireSignature().build();
        assertThat(check.tokenFor(
                        "orders",
                        request.headers().firstValue(FencingHeader.NAME).orElseThrow()))
                .isEqualTo(token);
    }

    /** A lease as a value: its name, token and whether it is valid. */
    private record Held(String lockName, long token, boolean isValid) implements Lease {
        @Override
        public Duration remaining() {
            return isValid ? Duration.ofSeconds(1) : Duration.ZERO;
        }

        @Override
        public void extend(Duration leaseTime) {}

        @Override
        public void onLost(LeaseLostListener listener) {}

        @Override
        public void close() {}
    }
}

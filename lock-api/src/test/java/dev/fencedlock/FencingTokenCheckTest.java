package dev.fencedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.FenceRefusedException.Reason;
import dev.fencedlock.spi.TokenOrder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FencingTokenCheckTest {
    private static final Instant NOW = Instant.parse("2026-11-28T12:00:00Z");
    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);
    private static final long GRANTED = TokenOrder.floor(NOW.toEpochMilli() - 5_000) + 3;
    private static final FencingKey OLD_KEY = FencingKey.of("2026-10", secret('o'));
    private static final FencingKey NEW_KEY = FencingKey.of("2026-11", secret('n'));

    private final FencingTokenCheck check =
            FencingTokenCheck.builder().clock(CLOCK).build();

    @Test
    void aGrantedTokenForTheLockPasses() {
        String value = FencingHeader.encode(Map.of("orders", GRANTED, "stock", GRANTED + 1));

        assertThat(check.tokenFor("orders", value)).isEqualTo(GRANTED);
        assertThat(check.tokenFor("stock", value)).isEqualTo(GRANTED + 1);
    }

    @Test
    void noHeaderOrNoTokenForTheLockIsNotPresented() {
        assertThatThrownBy(() -> check.tokenFor("orders", null))
                .isInstanceOfSatisfying(FenceRefusedException.class, refused -> {
                    assertThat(refused.reason()).isEqualTo(Reason.TOKEN_NOT_PRESENTED);
                    assertThat(refused.lockName()).isEqualTo("orders");
                    assertThat(refused.token()).isEqualTo(FenceRefusedException.NO_TOKEN);
                });
        assertThatThrownBy(() -> check.tokenFor("orders", FencingHeader.encode(Map.of("stock", GRANTED))))
                .isInstanceOfSatisfying(
                        FenceRefusedException.class,
                        refused -> assertThat(refused.reason()).isEqualTo(Reason.TOKEN_NOT_PRESENTED));
    }

    @Test
    void aTokenWhoseTimeLiesAheadOfTheClockByMoreThanTheSkewWasNeverGranted() {
        long anHourAhead = TokenOrder.floor(NOW.plus(Duration.ofHours(1)).toEpochMilli());
        long justWithin = TokenOrder.floor(NOW.plusSeconds(10).toEpochMilli()) + 65_535;
        long justBeyond = TokenOrder.floor(NOW.plusSeconds(10).toEpochMilli() + 1);

        assertThatThrownBy(() -> check.tokenFor("orders", FencingHeader.encode(Map.of("orders", anHourAhead))))
                .isInstanceOfSatisfying(FenceRefusedException.class, refused -> {
                    assertThat(refused.reason()).isEqualTo(Reason.TOKEN_NOT_TRUSTED);
                    assertThat(refused.token()).isEqualTo(anHourAhead);
                    assertThat(refused.getMessage()).contains("ahead of this receiver's clock");
                });
        assertThat(check.tokenFor("orders", FencingHeader.encode(Map.of("orders", justWithin))))
                .isEqualTo(justWithin);
        assertThatThrownBy(() -> check.tokenFor("orders", FencingHeader.encode(Map.of("orders", justBeyond))))
                .isInstanceOf(FenceRefusedException.class);
        assertThatThrownBy(() -> check.tokenFor("orders", FencingHeader.encode(Map.of("orders", Long.MAX_VALUE))))
                .isInstanceOf(FenceRefusedException.class);
    }

    @Test
    void withSignaturesRequiredOnlyATokenSignedWithAnAcceptedKeyPasses() {
        FencingTokenCheck signed = FencingTokenCheck.builder()
                .clock(CLOCK)
                .acceptKeys(OLD_KEY, NEW_KEY)
                .requireSignature()
                .build();
        Map<String, Long> tokens = Map.of("orders", GRANTED);

        assertThat(signed.tokenFor("orders", FencingHeader.encode(NEW_KEY, tokens)))
                .isEqualTo(GRANTED);
        assertThat(signed.tokenFor("orders", FencingHeader.encode(OLD_KEY, tokens)))
                .as("the rotated-out key, accepted by its id")
                .isEqualTo(GRANTED);
        assertNotTrusted(signed, FencingHeader.encode(tokens), "not signed");
        assertNotTrusted(signed, FencingHeader.encode(FencingKey.of("2026-09", secret('x')), tokens), "does not know");
        assertNotTrusted(signed, FencingHeader.encode(FencingKey.of("2026-11", secret('x')), tokens), "is wrong");
        String otherToken = FencingHeader.encode(NEW_KEY, Map.of("orders", GRANTED + 1));
        String swapped = FencingHeader.encode(NEW_KEY, tokens)
                .replace("token=\"" + GRANTED + "\"", "token=\"" + (GRANTED + 1) + "\"");
        assertThat(swapped).isNotEqualTo(otherToken);
        assertNotTrusted(signed, swapped, "is wrong");
    }

    @Test
    void aSignedTokenIsCheckedEvenWhereSignaturesAreNotRequired() {
        FencingTokenCheck keyed =
                FencingTokenCheck.builder().clock(CLOCK).acceptKeys(NEW_KEY).build();
        Map<String, Long> tokens = Map.of("orders", GRANTED);

        assertThat(keyed.tokenFor("orders", FencingHeader.encode(tokens))).isEqualTo(GRANTED);
        assertNotTrusted(keyed, FencingHeader.encode(FencingKey.of("2026-11", secret('x')), tokens), "is wrong");
    }

    @Test
    void badSettingsAndMalformedValuesAreNamed() {
        assertThatThrownBy(() -> FencingTokenCheck.builder().requireSignature().build())
                .hasMessageContaining("no fencing key");
        assertThatThrownBy(() -> FencingTokenCheck.builder().acceptKeys(NEW_KEY, FencingKey.of("2026-11", secret('y'))))
                .hasMessageContaining("two fencing keys have the id '2026-11'");
        assertThatThrownBy(() -> FencingKey.of("k", new byte[16])).hasMessageContaining("at least 32 bytes");
        assertThatThrownBy(() -> FencingKey.ofBase64("k", "%%%")).hasMessageContaining("not base64");
        assertThat(FencingKey.of("k", secret('s')).toString()).isEqualTo("FencingKey[k]");
        assertThatThrownBy(() -> check.tokenFor("orders", "\"orders\";token=\"x\""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a number");
    }

    private static void assertNotTrusted(FencingTokenCheck check, String value, String why) {
        assertThatThrownBy(() -> check.tokenFor("orders", value))
                .isInstanceOfSatisfying(FenceRefusedException.class, refused -> {
                    assertThat(refused.reason()).isEqualTo(Reason.TOKEN_NOT_TRUSTED);
                    assertThat(refused.getMessage()).contains(why);
                });
    }

    private static byte[] secret(char fill) {
        return String.valueOf(fill).repeat(32).getBytes(StandardCharsets.US_ASCII);
    }
}

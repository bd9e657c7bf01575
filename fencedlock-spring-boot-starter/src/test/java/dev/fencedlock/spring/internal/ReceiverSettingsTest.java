package dev.fencedlock.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.FencingHeader;
import dev.fencedlock.FencingKey;
import dev.fencedlock.spi.TokenOrder;
import dev.fencedlock.spring.FencedLockAutoConfiguration;
import dev.fencedlock.spring.FencedLockStartupException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.mock.env.MockEnvironment;

/** The {@code fencedlock.token.*} properties as a receiver reads them, and bad ones failing start-up by name. */
class ReceiverSettingsTest {
    private static final String NEW_SECRET = secret('n');
    private static final String OLD_SECRET = secret('o');

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(FencedLockAutoConfiguration.class))
            .withPropertyValues("fencedlock.backend=local");

    @Test
    void theDefaultsAcceptUnsignedTokensUpToTenSecondsAheadWithin30Seconds() {
        ReceiverSettings settings = ReceiverSettings.from(new MockEnvironment());
        long now = System.currentTimeMillis();

        assertThat(settings.bound()).isEqualTo(Duration.ofSeconds(30));
        assertThat(settings.check().tokenFor("a", header("a", TokenOrder.floor(now + 5_000))))
                .isEqualTo(TokenOrder.floor(now + 5_000));
        assertThatThrownBy(() -> settings.check().tokenFor("a", header("a", TokenOrder.floor(now + 60_000))))
                .isInstanceOfSatisfying(
                        FenceRefusedException.class,
                        refused ->
                                assertThat(refused.reason()).isEqualTo(FenceRefusedException.Reason.TOKEN_NOT_TRUSTED));
    }

    @Test
    void signingAndAcceptedKeysAreAcceptedByIdAndTheirSignaturesRequired() {
        MockEnvironment environment = new MockEnvironment()
                .withProperty("fencedlock.token.signing-key-id", "2026-12")
                .withProperty("fencedlock.token.signing-key", NEW_SECRET)
                .withProperty("fencedlock.token.accepted-keys.2026-11", OLD_SECRET)
                .withProperty("fencedlock.token.accepted-keys[2025.10]", OLD_SECRET)
                .withProperty("fencedlock.token.require-signature", "true")
                .withProperty("fencedlock.token.max-ahead", "1m")
                .withProperty("fencedlock.token.receiver-bound", "5s");
        ReceiverSettings settings = ReceiverSettings.from(environment);
        long token = TokenOrder.floor(System.currentTimeMillis() + 30_000);

        assertThat(settings.bound()).isEqualTo(Duration.ofSeconds(5));
        for (FencingKey key : new FencingKey[] {
            FencingKey.ofBase64("2026-12", NEW_SECRET),
            FencingKey.ofBase64("2026-11", OLD_SECRET),
            FencingKey.ofBase64("2025.10", OLD_SECRET)
        }) {
            assertThat(settings.check().tokenFor("a", FencingHeader.encode(key, Map.of("a", token))))
                    .as(key.toString())
                    .isEqualTo(token);
        }
        assertThatThrownBy(() -> settings.check().tokenFor("a", header("a", token)))
                .hasMessageContaining("not signed");
    }

    @Test
    void aBadSettingIsNamed() {
        assertNamed("fencedlock.token.max-ahead", Map.of("fencedlock.token.max-ahead", "soon"));
        assertNamed("fencedlock.token.max-ahead", Map.of("fencedlock.token.max-ahead", "-1s"));
        assertNamed("fencedlock.token.receiver-bound", Map.of("fencedlock.token.receiver-bound", "0s"));
        assertNamed("fencedlock.token.require-signature", Map.of("fencedlock.token.require-signature", "yes"));
        assertNamed("fencedlock.token.require-signature", Map.of("fencedlock.token.require-signature", "true"));
        assertNamed("fencedlock.token.signing-key", Map.of("fencedlock.token.signing-key-id", "k"));
        assertNamed(
                "fencedlock.token.signing-key",
                Map.of("fencedlock.token.signing-key-id", "k", "fencedlock.token.signing-key", "not base64!"));
        assertNamed(
                "fencedlock.token.accepted-keys.short",
                Map.of(
                        "fencedlock.token.accepted-keys.short",
                        Base64.getEncoder().encodeToString(new byte[8])));
        assertNamed(
                "fencedlock.token.signing-key-id",
                Map.of(
                        "fencedlock.token.signing-key-id", "same",
                        "fencedlock.token.signing-key", NEW_SECRET,
                        "fencedlock.token.accepted-keys.same", OLD_SECRET));
    }

    @Test
    void aBadSettingFailsStartUpAndAnAcceptedKeyIsNoUnknownKey() {
        runner.withPropertyValues("fencedlock.token.require-signature=true")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasRootCauseInstanceOf(IllegalArgumentException.class)
                        .rootCause()
                        .hasMessageContaining("fencedlock.token.require-signature"));
        runner.withPropertyValues("fencedlock.token.max-ahed=5s")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("fencedlock.token.max-ahed")
                        .hasMessageContaining("did you mean 'fencedlock.token.max-ahead'"));
        runner.withPropertyValues(
                        "fencedlock.token.accepted-keys.2026-11=" + OLD_SECRET,
                        "fencedlock.token.require-signature=true",
                        "fencedlock.token.max-ahead=30s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(PresentedTokens.class)).isNotNull();
                });
    }

    private static void assertNamed(String key, Map<String, String> properties) {
        MockEnvironment environment = new MockEnvironment();
        properties.forEach(environment::setProperty);
        assertThatThrownBy(() -> ReceiverSettings.from(environment))
                .as("%s", properties)
                .isInstanceOf(IllegalArgumentException.class)
                .isNotInstanceOf(FencedLockStartupException.class)
                .hasMessageContaining(key);
    }

    private static String header(String lockName, long token) {
        return FencingHeader.encode(Map.of(lockName, token));
    }

    private static String secret(char fill) {
        return Base64.getEncoder()
                .encodeToString(String.valueOf(fill).repeat(32).getBytes(StandardCharsets.US_ASCII));
    }
}

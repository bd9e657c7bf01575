package dev.fencedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FencingHeaderTest {

    @Test
    void aValueOfSeveralLocksReadsBackInOrderWithFullTokens() {
        Map<String, Long> tokens = new LinkedHashMap<>();
        tokens.put("orders-42", Long.MAX_VALUE);
        tokens.put("lager-köln", 0L);
        tokens.put("a=b, c; \"quoted\" \\ back", 7523094288207360001L);
        tokens.put("100% 東京", 1L << 62);

        String value = FencingHeader.encode(tokens);

        assertThat(FencingHeader.decode(value)).containsExactlyEntriesOf(tokens);
    }

    @Test
    void printableAsciiNamesAreStringsAndOthersDisplayStrings() {
        Map<String, Long> tokens = new LinkedHashMap<>();
        tokens.put("orders \"x\"", 5L);
        tokens.put("köln", 6L);

        assertThat(FencingHeader.encode(tokens))
                .isEqualTo("\"orders \\\"x\\\"\";token=\"5\", %\"k%c3%b6ln\";token=\"6\"");
    }

    @Test
    void readsWhatAnotherWriterMaySendWhitespaceUnknownParametersAndUpperCaseHex() {
        String value = "  \"a\";token=\"12\";v=2;note=\"x\",\t%\"k%C3%B6ln\"; token=\"13\";bin=:AAE=:;n=7 ";

        assertThat(FencingHeader.decode(value)).containsExactly(Map.entry("a", 12L), Map.entry("köln", 13L));
    }

    @Test
    void aBlankValueCarriesNoToken() {
        assertThat(FencingHeader.decode("")).isEmpty();
        assertThat(FencingHeader.decode("   ")).isEmpty();
    }

    @Test
    void leasesAreEncodedByLockName() {
        Lease first = new FixedLease("stock", 41L);
        Lease second = new FixedLease("orders", 42L);

        assertThat(FencingHeader.decode(FencingHeader.encode(first, second)))
                .containsExactly(Map.entry("stock", 41L), Map.entry("orders", 42L));
        assertThatThrownBy(() -> FencingHeader.encode(first, new FixedLease("stock", 43L)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("two leases of lock 'stock'");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "orders;token=\"1\"",
                "\"orders\"",
                "\"orders\";token=1",
                "\"orders\";token=\"\"",
                "\"orders\";token=\"12a\"",
                "\"orders\";token=\"9223372036854775808\"",
                "\"orders\";token=\"-5\"",
                "\"orders\";token=\"1\",",
                "\"orders\";token=\"1\" \"stock\";token=\"2\"",
                "\"orders\";token=\"1\", \"orders\";token=\"2\"",
                "\"orders;token=\"1\"",
                "\"ord\\ers\";token=\"1\"",
                "%\"k%c3\";token=\"1\"",
                "%\"k%zz\";token=\"1\"",
                "\"   \";token=\"1\"",
                "\"orders\";token=\"1\";kid=\"k\"",
                "\"orders\";token=\"1\";sig=:AAAA:",
                "\"orders\";token=\"1\";kid=\"k\";sig=:not base64:",
                "\"orders\";Token=\"1\"",
            })
    void aMalformedValueIsRefusedNamingTheProblem(String value) {
        assertThatThrownBy(() -> FencingHeader.decode(value))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("malformed Fencing-Token value: ");
    }

    @Test
    void aNegativeTokenIsNamedAsSuch() {
        assertThatThrownBy(() -> FencingHeader.decode("\"orders\";token=\"-5\""))
                .hasMessageContaining("the token of lock 'orders' is negative");
        assertThatThrownBy(() -> FencingHeader.encode(Map.of("orders", -5L)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be a number from 0");
    }

    @Test
    void aValueOverTheLimitsIsRefused() {
        StringBuilder many = new StringBuilder();
        for (int i = 0; i <= FencingHeader.MAX_LOCKS; i++) {
            many.append(i == 0 ? "" : ",").append("\"l").append(i).append("\";token=\"1\"");
        }
        assertThatThrownBy(() -> FencingHeader.decode(many.toString())).hasMessageContaining("more than 64 locks");

        String huge = "\"" + "x".repeat(FencingHeader.MAX_LENGTH) + "\";token=\"1\"";
        assertThatThrownBy(() -> FencingHeader.decode(huge))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("more than the 8192 accepted");

        Map<String, Long> tooMany = new LinkedHashMap<>();
        for (int i = 0; i <= FencingHeader.MAX_LOCKS; i++) {
            tooMany.put("l" + i, 1L);
        }
        assertThatThrownBy(() -> FencingHeader.encode(tooMany)).hasMessageContaining("at most 64 locks");
    }

    @Test
    void aLockNameTheRulesRefuseIsRefusedOnBothSides() {
        assertThatThrownBy(() -> FencingHeader.encode(Map.of("bad\nname", 1L)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("control characters");
        assertThatThrownBy(() -> FencingHeader.decode("%\"bad%0aname\";token=\"1\""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("breaks the lock-name rules");
        String tooLong = "\"" + "n".repeat(LockNames.MAX_LENGTH + 1) + "\";token=\"1\"";
        assertThatThrownBy(() -> FencingHeader.decode(tooLong)).hasMessageContaining("at most 256 characters");
    }

    /** A lease as a value: only its name and token are read. */
    private record FixedLease(String lockName, long token) implements Lease {
        @Override
        public boolean isValid() {
            return true;
        }

        @Override
        public java.time.Duration remaining() {
            return java.time.Duration.ofSeconds(1);
        }

        @Override
        public void extend(java.time.Duration leaseTime) {}

        @Override
        public void onLost(LeaseLostListener listener) {}

        @Override
        public void close() {}
    }
}

package dev.fencedlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.LockNames;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.curator.utils.PathUtils;
import org.junit.jupiter.api.Test;

class ZNodeNamesTest {
    private static final List<String> TRICKY = List.of(
            "inventory:sku-42",
            "a/b",
            "a",
            "b",
            "a%2Fb",
            "/",
            "//",
            "/leading",
            "trailing/",
            ".",
            "..",
            "...",
            "%2E",
            "./x",
            "zookeeper",
            " spaced name ",
            "ümlaut",
            "锁",
            "🔒 emoji",
            "\u00A0nbsp",
            "\uE000private-use",
            "\uFFF0specials",
            "x".repeat(LockNames.MAX_LENGTH),
            "🔒".repeat(LockNames.MAX_LENGTH / 2),
            "é".repeat(LockNames.MAX_LENGTH));

    @Test
    void everyValidNameBecomesOneValidPathElement() {
        for (String name : TRICKY) {
            String encoded = ZNodeNames.encode(LockNames.requireValid(name));
            assertThat(encoded).as("encoding of %s", name).doesNotContain("/").isNotIn(".", "..");
            assertThatCode(() -> PathUtils.validatePath("/fencedlock/" + encoded))
                    .as("path for %s", name)
                    .doesNotThrowAnyException();
        }
    }

    @Test
    void differentNamesNeverShareANode() {
        Map<String, String> seen = new HashMap<>();
        for (String name : TRICKY) {
            String previous = seen.put(ZNodeNames.encode(name), name);
            assertThat(previous).as("%s and %s encode alike", previous, name).isNull();
        }
    }

    @Test
    void readableNamesStayReadable() {
        assertThat(ZNodeNames.encode("inventory:sku-42")).isEqualTo("inventory:sku-42");
        assertThat(ZNodeNames.encode("orders.v2_eu")).isEqualTo("orders.v2_eu");
        assertThat(ZNodeNames.encode("a/b")).isEqualTo("a%2Fb");
        assertThat(ZNodeNames.encode("100%")).isEqualTo("100%25");
        assertThat(ZNodeNames.encode("..")).isEqualTo("%2E%2E");
        assertThat(ZNodeNames.encode("锁")).isEqualTo("%E9%94%81");
    }

    @Test
    void longestNamesStayWellWithinZooKeepersLimits() {
        assertThat(ZNodeNames.encode("\uFFEF".repeat(LockNames.MAX_LENGTH))).hasSize(9 * LockNames.MAX_LENGTH);
    }

    @Test
    void unpairedSurrogateIsRejectedNamingTheProblem() {
        assertThatThrownBy(() -> ZNodeNames.encode("broken\uD800name"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unpaired surrogate")
                .hasMessageContaining("broken?name");
    }
}

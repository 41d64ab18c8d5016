package org.nat64fabric.pipeconf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.nat64fabric.core.p4.P4InfoConstants.NAT64_INGRESS_IPV4_ROUTES;
import static org.nat64fabric.core.p4.P4InfoConstants.NAT64_INGRESS_TRANSLATE_SESSION_V6;

import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.stream.Collectors;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.onosproject.net.pi.model.PiActionId;
import org.onosproject.net.pi.model.PiMatchType;
import org.onosproject.net.pi.model.PiPipeconf;
import org.onosproject.net.pi.model.PiTableId;
import org.onosproject.net.pi.model.PiTableModel;
import org.w3c.dom.Element;

/** The NetFPGA SUME pipeconf and driver: the variant's P4Info as ONOS parses it, and what the driver pushes. */
class SumePipeconfTest {
    private static PiPipeconf sume() throws Exception {
        return PipeconfLoader.pipeconfs().stream().filter(p -> p.id().equals(PipeconfLoader.SUME)).findFirst().orElseThrow();
    }

    @Test
    void theSumePipeconfCarriesTheVariantsP4InfoWithWhatTheCardHolds() throws Exception {
        PiPipeconf p = sume();
        PiTableModel session = p.pipelineModel().table(PiTableId.of(NAT64_INGRESS_TRANSLATE_SESSION_V6)).orElseThrow();
        assertFalse(session.supportsAging(), "ONOS 2.7 ages rules by their counters, not the agent's idle timeouts");
        assertEquals(java.util.Set.of("src4", "src_port", "filtered", "transitory"), session.action(PiActionId.of("Nat64Ingress.translate.snat"))
                .orElseThrow().params().stream().map(a -> a.id().id()).collect(Collectors.toSet()),
                "v1model's parameters: the entry's slot is the agent's");
        assertEquals(4096, session.maxSize(), "the card's CAM depth");
        assertEquals(PiMatchType.LPM, p.pipelineModel().table(PiTableId.of(NAT64_INGRESS_IPV4_ROUTES)).orElseThrow()
                .matchFields().iterator().next().matchType());
        assertTrue(p.pipelineModel().counters().isEmpty() && p.pipelineModel().meters().isEmpty(), "SDNet has neither");
        assertTrue(p.pipelineModel().table(PiTableId.of("Nat64Ingress.icmp_error.icmp_source")).isEmpty(),
                "the ICMP error tables are v1model's only");
        try (InputStream soft = PipeconfTest.class.getResourceAsStream("/p4/device_config.bin");
             InputStream card = PipeconfTest.class.getResourceAsStream("/p4/sume/device_config.bin")) {
            ByteBuffer pushed = new SoftswitchPipelineProgrammable().createDeviceDataBuffer(p);
            byte[] built = card.readAllBytes();
            assertEquals(ByteBuffer.wrap(built), pushed, "the driver pushes what the card was built from");
            assertFalse(java.util.Arrays.equals(built, soft.readAllBytes()), "not the v1model pipeline's");
        }
    }

    @Test
    void theSumeDriverIsAP4RuntimeDriverThatPushesTheCardsDeviceConfig() throws Exception {
        Element driver;
        try (InputStream xml = SumePipeconfTest.class.getResourceAsStream("/sume-drivers.xml")) {
            driver = (Element) DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(xml)
                    .getElementsByTagName("driver").item(0);
        }
        assertEquals(List.of("sume", "p4runtime"), List.of(driver.getAttribute("name"), driver.getAttribute("extends")));
        Element behaviour = (Element) driver.getElementsByTagName("behaviour").item(0);
        assertEquals(SoftswitchPipelineProgrammable.class.getName(), behaviour.getAttribute("impl"));
        assertTrue(Class.forName(behaviour.getAttribute("api")).isAssignableFrom(SoftswitchPipelineProgrammable.class));
    }
}

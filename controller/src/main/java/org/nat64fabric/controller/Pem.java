package org.nat64fabric.controller;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;

/**
 * The TLS files the controller is given, read when it starts so that a wrong one stops it with one
 * line naming the option and the file, before any switch is contacted (not at the first handshake).
 */
final class Pem {
    private Pem() {
    }

    /** The certificates of a PEM file (a chain, or a CA bundle); at least one, each valid today. */
    static List<Certificate> certificates(String option, Path file) throws IOException, GeneralSecurityException {
        List<Certificate> all;
        try (InputStream in = Files.newInputStream(readable(option, file))) {
            all = List.copyOf(CertificateFactory.getInstance("X.509").generateCertificates(in));
        } catch (CertificateException e) {
            throw new GeneralSecurityException(option + " " + file + ": not a PEM certificate (" + e.getMessage() + ")");
        }
        if (all.isEmpty()) {
            throw new GeneralSecurityException(option + " " + file + ": no PEM certificate in it (BEGIN CERTIFICATE)");
        }
        for (Certificate c : all) {
            try {
                ((X509Certificate) c).checkValidity();
            } catch (CertificateException e) {
                throw new GeneralSecurityException(option + " " + file + ": a certificate in it is not valid now ("
                        + e.getMessage() + "); issue a new one");
            }
        }
        return all;
    }

    /** A PEM PKCS#8 private key (BEGIN PRIVATE KEY), RSA, EC or Ed25519. */
    static PrivateKey privateKey(String option, Path file) throws IOException, GeneralSecurityException {
        String pem = Files.readString(readable(option, file), StandardCharsets.US_ASCII);
        String begin = "-----BEGIN PRIVATE KEY-----";
        int from = pem.indexOf(begin);
        int to = pem.indexOf("-----END PRIVATE KEY-----");
        String convert = "; convert it with `openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8`";
        if (from < 0 || to < from) {
            throw new GeneralSecurityException(option + " " + file + ": not a PEM PKCS#8 private key (BEGIN PRIVATE KEY)" + convert);
        }
        byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(pem.substring(from + begin.length(), to));
        } catch (IllegalArgumentException e) {
            throw new GeneralSecurityException(option + " " + file + ": the key's PEM text is not base64 (cut or edited?)");
        }
        for (String algorithm : new String[] {"RSA", "EC", "Ed25519"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException notThisOne) {
                // try the next algorithm
            }
        }
        throw new GeneralSecurityException(option + " " + file + ": not an RSA, EC or Ed25519 private key" + convert);
    }

    /** The key belongs to the first certificate: a server with a key of another would fail every handshake. */
    static void pair(String option, Certificate certificate, PrivateKey key) throws GeneralSecurityException {
        java.security.Signature sign = java.security.Signature.getInstance(signatureAlgorithm(key));
        byte[] probe = "nat64fabric".getBytes(StandardCharsets.US_ASCII);
        sign.initSign(key);
        sign.update(probe);
        byte[] signature = sign.sign();
        java.security.Signature verify = java.security.Signature.getInstance(signatureAlgorithm(key));
        verify.initVerify(certificate.getPublicKey());
        verify.update(probe);
        if (!verify.verify(signature)) {
            throw new GeneralSecurityException(option + ": the key is not the certificate's (give the key the certificate was issued for)");
        }
    }

    private static String signatureAlgorithm(PrivateKey key) {
        switch (key.getAlgorithm()) {
            case "RSA": return "SHA256withRSA";
            case "EC": return "SHA256withECDSA";
            default: return key.getAlgorithm();   // Ed25519 signs as itself
        }
    }

    private static Path readable(String option, Path file) throws IOException {
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new IOException(option + " " + file + ": no such readable file");
        }
        return file;
    }
}

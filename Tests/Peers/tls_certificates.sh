#!/bin/sh
# Writes the certificates Net's TLS tests use into the directory $1, with openssl alone:
#   ca.pem, ca.key           a private CA (not in any system store)
#   server.pem, server.key   127.0.0.1 and localhost, signed by the CA
#   expired.pem/.key         127.0.0.1, signed by the CA, valid only in 2020
#   wronghost.pem/.key       only wrong.example, signed by the CA
#   other.pem/.key           127.0.0.1, signed by the CA, a second key (for pin mismatches)
#   client-ca.pem/.key       the CA that client certificates must chain to
#   client.pem               a client certificate (CN=net-test-client) from client-ca
#   client.key               its key, unencrypted; client-encrypted.key: the same, passphrase "s3cret"
#   *.pin                    each server key's pin: base64 SHA-256 of its SubjectPublicKeyInfo
set -eu
out=$1
mkdir -p "$out"
cd "$out"
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
ca() {  # name subject
    key "$1.key"
    openssl req -x509 -new -key "$1.key" -sha256 -days 30 -subj "/CN=$2" \
        -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign -out "$1.pem"
}
leaf() {  # name ca subject-alt-names extended-usage [common-name]
    key "$1.key"
    openssl req -new -key "$1.key" -subj "/CN=${5:-$1}" -out "$1.csr"
    printf 'subjectAltName=%s\nextendedKeyUsage=%s\nbasicConstraints=CA:FALSE\n' "$3" "$4" > "$1.ext"
    openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" -CAcreateserial -sha256 -days 30 \
        -extfile "$1.ext" -out "$1.pem" 2>/dev/null
}
pin() { openssl pkey -in "$1.key" -pubout -outform der | openssl dgst -sha256 -binary | openssl base64 -A > "$1.pin"; }

ca ca "Net Test CA"
leaf server ca "IP:127.0.0.1,DNS:localhost" serverAuth
leaf wronghost ca "DNS:wrong.example" serverAuth
leaf other ca "IP:127.0.0.1,DNS:localhost" serverAuth
for name in server other; do pin "$name"; done

# Expired: `openssl ca` is the one openssl command that takes explicit dates.
key expired.key
openssl req -new -key expired.key -subj "/CN=expired" -out expired.csr
mkdir -p ca-db && : > ca-db/index.txt && echo 01 > ca-db/serial
cat > ca-db/ca.conf <<CONF
[ca]
default_ca = test
[test]
database = ca-db/index.txt
serial = ca-db/serial
new_certs_dir = ca-db
default_md = sha256
policy = any
copy_extensions = none
[any]
commonName = supplied
[leaf]
subjectAltName = IP:127.0.0.1,DNS:localhost
extendedKeyUsage = serverAuth
basicConstraints = CA:FALSE
CONF
openssl ca -batch -config ca-db/ca.conf -cert ca.pem -keyfile ca.key -in expired.csr -out expired.pem \
    -startdate 20200101000000Z -enddate 20200201000000Z -extensions leaf -notext 2>/dev/null

ca client-ca "Net Test Client CA"
leaf client client-ca "DNS:net-test-client" clientAuth net-test-client
openssl pkcs8 -topk8 -in client.key -v2 aes-256-cbc -passout pass:s3cret -out client-encrypted.key

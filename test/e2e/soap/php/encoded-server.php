<?php
// A PHP SoapServer without a WSDL, as the test peer for encoded requests: with no schema it decodes
// a request by its xsi:type and SOAP-ENC:arrayType attributes alone (an untyped value is a string,
// an untyped list of <item> elements an object), as old rpc/encoded hosts do. Each call appends
// [operation, arguments] as one JSON line to the file PHP_PEER_LOG names, for the test to read.
ini_set('soap.wsdl_cache_enabled', '0');

class EncodedPeer
{
    public function __call($operation, $arguments)
    {
        file_put_contents(getenv('PHP_PEER_LOG'), json_encode([$operation, $arguments]) . "\n", FILE_APPEND);
        return $operation === 'mc_filter_search_issue_ids' ? [3, 4] : 7;
    }
}

$server = new SoapServer(null, ['uri' => 'http://futureware.biz/mantisconnect']);
$server->setObject(new EncodedPeer());
$server->handle();
